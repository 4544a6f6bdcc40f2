import type { ValidationReport } from './validate-node.js';

/**
 * A node's files in the words publish and validate share: the files the API lists, then
 * manifest.json, which it does not.
 */
export function formatFileCount(files: number): string {
  return `${files} file${files === 1 ? '' : 's'} and manifest.json`;
}

/** The validation report as a person reads it: a verdict, then each problem with where it is. */
export function formatValidationReport(report: ValidationReport): string {
  const head = report.ok
    ? `valid: ${report.location} (node ${report.nodeVersion ?? '?'}, ${report.nodeVersionLabel ?? 'no label'}, ${report.domain ?? '?'}): ${formatFileCount(Math.max(0, report.files - 1))}, ${report.recordCount} records (${report.records} JSONL lines in all)`
    : `INVALID: ${report.location}: ${report.errors.length} errors${report.truncated ? ' (more were found; see counts)' : ''}`;
  const lines = [head];
  const show = (label: string, issues: ValidationReport['errors']) => {
    if (issues.length === 0) return;
    lines.push('', `${label}:`);
    for (const i of issues.slice(0, 100))
      lines.push(`  [${i.code}] ${i.file ?? ''}${i.line ? `:${i.line}` : ''} ${i.message}`);
    if (issues.length > 100) lines.push(`  ... ${issues.length - 100} more`);
  };
  show('errors', report.errors);
  show('warnings', report.warnings);
  if (!report.ok)
    lines.push(
      '',
      `counts: ${Object.entries(report.counts)
        .map(([c, n]) => `${c}=${n}`)
        .join(', ')}`,
    );
  return lines.join('\n');
}
