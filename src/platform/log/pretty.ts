import { Writable } from 'node:stream';

/**
 * Readable log lines for a person at a terminal, from pino's own JSON lines (no dependency: pino-
 * pretty is not one of ours). A scraper or a file gets the JSON unchanged; see prettyLogsWanted.
 */

const LEVELS: Record<number, { name: string; color: string }> = {
  10: { name: 'TRACE', color: '\x1b[90m' },
  20: { name: 'DEBUG', color: '\x1b[36m' },
  30: { name: 'INFO ', color: '\x1b[32m' },
  40: { name: 'WARN ', color: '\x1b[33m' },
  50: { name: 'ERROR', color: '\x1b[31m' },
  60: { name: 'FATAL', color: '\x1b[35m' },
};
const RESET = '\x1b[0m';
const DIM = '\x1b[2m';
/** Fields every line has, or that the headline already shows. */
const LEFT_OUT = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'v']);

function valueText(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  return JSON.stringify(value) ?? String(value);
}

/**
 * One pino JSON line as `HH:MM:SS.mmm LEVEL message key=value ...` (UTC time), an error's
 * stack on the lines below; a line that is not pino's JSON comes back as it was.
 */
export function formatLogLine(line: string, options: { color: boolean }): string {
  let entry: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(line);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return line;
    entry = parsed as Record<string, unknown>;
  } catch {
    return line;
  }
  const paint = (code: string, text: string) => (options.color ? `${code}${text}${RESET}` : text);
  const level = LEVELS[Number(entry.level)] ?? { name: String(entry.level ?? '?').toUpperCase(), color: '' };
  const time = typeof entry.time === 'number' ? new Date(entry.time).toISOString().slice(11, 23) : '--:--:--.---';
  const stack =
    typeof entry.err === 'object' && entry.err !== null && typeof (entry.err as { stack?: unknown }).stack === 'string'
      ? (entry.err as { stack: string }).stack
      : undefined;
  const fields = Object.entries(entry)
    .filter(([key]) => !LEFT_OUT.has(key) && !(key === 'err' && stack !== undefined))
    .map(([key, value]) => `${key}=${valueText(value)}`);
  const head = [
    paint(DIM, time),
    paint(level.color, level.name),
    typeof entry.msg === 'string' ? entry.msg : '',
    ...(fields.length > 0 ? [paint(DIM, fields.join(' '))] : []),
  ]
    .filter((part) => part !== '')
    .join(' ');
  return stack === undefined ? head : `${head}\n${paint(DIM, stack.replace(/^/gm, '    '))}`;
}

/**
 * Pretty lines only for a person: the stream is a terminal. Colour unless NO_COLOR is set (any
 * value, https://no-color.org) or TERM is dumb.
 */
export function prettyLogsWanted(
  stream: { isTTY?: boolean },
  env: NodeJS.ProcessEnv = process.env,
): { pretty: boolean; color: boolean } {
  const pretty = stream.isTTY === true;
  return { pretty, color: pretty && env.NO_COLOR === undefined && env.TERM !== 'dumb' };
}

/** A stream pino writes its JSON lines into that writes them, formatted, to `out`. */
export function createPrettyLogStream(out: NodeJS.WritableStream, options: { color: boolean }): Writable {
  let pending = '';
  return new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) if (line !== '') out.write(formatLogLine(line, options) + '\n');
      done();
    },
    final(done) {
      if (pending !== '') out.write(formatLogLine(pending, options) + '\n');
      done();
    },
  });
}
