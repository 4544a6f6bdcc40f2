import { cliIo } from './io.js';

/** Where a command writes: JSON for scripts (--json), readable lines for people. */
export interface Output {
  readonly json: boolean;
  /** Prints the command's result: the object as one JSON line with --json, else the human text. */
  result(data: unknown, human: () => string): void;
  /** Progress and notes for people; goes to stderr so stdout stays parseable. */
  info(line: string): void;
}

export function createOutput(json: boolean): Output {
  return {
    json,
    result(data, human) {
      cliIo().stdout.write(json ? JSON.stringify(data) + '\n' : human().replace(/\n?$/, '\n'));
    },
    info(line) {
      cliIo().stderr.write(line + '\n');
    },
  };
}

/** A plain text table: columns padded to their widest cell. */
export function formatTable(headers: string[], rows: Array<Array<string | number | null | undefined>>): string {
  const cells = [headers, ...rows.map((row) => row.map((c) => (c === null || c === undefined ? '' : String(c))))];
  const widths = headers.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? '').length)));
  return cells
    .map((row) =>
      row
        .map((c, i) => (c ?? '').padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
