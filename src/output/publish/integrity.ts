import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../../platform/errors/index.js';
import type { ValidationReport } from '../../compiler/index.js';
import type { Manifest } from '../../platform/node-format/index.js';

/**
 * Runs the compiler's validateNode on a node directory and refuses a node that fails
 * (refuseInvalidNode). With `validatedNode` (validated-live.ts), files it holds unchanged are not
 * checked record by record. With `ownCompile` (the node was compiled by this publish) each
 * record's line schema, which the compiler ran as it wrote the record, is not run again; every
 * other check is. The node becomes a new version, so forms only an older nodectl wrote are
 * errors (forNewVersion). Loaded lazily so the publish module does not pull the validator into commands
 * that do not publish.
 */
export async function assertNodeValid(
  nodeDir: string,
  validatedNode?: Manifest,
  options: { ownCompile?: boolean } = {},
): Promise<{ warnings: number }> {
  const { validateNode } = await import('../../compiler/index.js');
  return refuseInvalidNode(
    await validateNode(nodeDir, {
      ...(validatedNode === undefined ? {} : { validatedNode }),
      recordsPassedSchemas: options.ownCompile === true,
      forNewVersion: true,
    }),
    nodeDir,
  );
}

/**
 * Refuses a node whose validation report is not ok: node.uuid_leak when any issue is a uuid
 * leak, else publish.validation_failed. The report is validateNode's on the folder, or the
 * check of a publish's own compile as it was written (WrittenNodeCheck): the same report.
 */
export function refuseInvalidNode(report: ValidationReport, nodeDir: string): { warnings: number } {
  if (report.ok) return { warnings: report.warnings.length };
  const issues = report.errors.slice(0, 20).map((i) => ({
    code: i.code,
    file: i.file,
    ...(i.line !== undefined ? { line: i.line } : {}),
    message: i.message,
  }));
  if (report.errors.some((i) => i.code === 'node.uuid_leak')) {
    throw new AppError(
      'node.uuid_leak',
      `The node holds a uuid where a stable id is required (${report.counts['node.uuid_leak'] ?? 1} places); nothing was published.`,
      { details: { issues: issues.filter((i) => i.code === 'node.uuid_leak') } },
    );
  }
  throw new AppError(
    'publish.validation_failed',
    `The node fails validation with ${report.errors.length} error(s), first: [${issues[0]?.code}] ${issues[0]?.file}: ${issues[0]?.message}. Nothing was published; run \`nodectl validate ${nodeDir}\`.`,
    { details: { issues } },
  );
}

/** Refuses the node unless `nodeDir` equals `goldenDir` byte for byte (same files, same bytes). */
export function assertMatchesGolden(nodeDir: string, goldenDir: string): void {
  const list = (dir: string) => {
    try {
      return readdirSync(dir)
        .filter((n) => !n.startsWith('.') && statSync(join(dir, n)).isFile())
        .sort();
    } catch {
      throw new AppError('publish.golden_mismatch', `The golden directory ${dir} cannot be read.`, {
        details: { differences: [{ path: '(golden)', difference: 'unreadable' }] },
      });
    }
  };
  const a = list(nodeDir);
  const b = list(goldenDir);
  const differences: Array<{ path: string; difference: string }> = [];
  for (const path of [...new Set([...a, ...b])].sort()) {
    if (!a.includes(path)) differences.push({ path, difference: 'only in golden' });
    else if (!b.includes(path)) differences.push({ path, difference: 'only in the compiled node' });
    else if (!readFileSync(join(nodeDir, path)).equals(readFileSync(join(goldenDir, path))))
      differences.push({ path, difference: 'bytes differ' });
  }
  if (differences.length > 0) {
    throw new AppError(
      'publish.golden_mismatch',
      `The compiled node differs from ${goldenDir} in ${differences.length} file(s): ${differences
        .slice(0, 5)
        .map((d) => `${d.path} (${d.difference})`)
        .join(', ')}. Nothing was published.`,
      { details: { differences } },
    );
  }
}
