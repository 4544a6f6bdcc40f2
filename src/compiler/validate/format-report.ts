import type { ValidationReport } from './validate-node.js';

/** The validation report as a person reads it: a verdict, then each problem with where it is. */
export function formatValidationReport(report: ValidationReport): string {
  const head = report.ok
    ? `valid: ${report.location} (node ${report.nodeVersion ?? '?'}, ${report.nodeVersionLabel ?? 'no label'}, ${report.domain ?? '?'}): ${report.files} files, ${report.records} records`
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
