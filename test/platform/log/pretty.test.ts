import { describe, expect, it } from 'vitest';
import { formatLogLine, prettyLogsWanted } from '../../../src/platform/log/index.js';

const line = (entry: Record<string, unknown>) =>
  JSON.stringify({ level: 30, time: Date.UTC(2026, 10, 28, 7, 5, 9, 42), pid: 1, hostname: 'h', ...entry });

describe('formatLogLine', () => {
  it('turns a pino JSON line into time, level, message and key=value fields (they were raw JSON on a terminal)', () => {
    expect(
      formatLogLine(line({ msg: 'request completed', reqId: 'req_1', res: { statusCode: 200 }, note: 'a b' }), {
        color: false,
      }),
    ).toBe('07:05:09.042 INFO  request completed reqId=req_1 res={"statusCode":200} note="a b"');
  });

  it('prints an error stack on the lines below, indented', () => {
    const text = formatLogLine(line({ level: 50, msg: 'boom', err: { type: 'Error', stack: 'Error: x\n    at y' } }), {
      color: false,
    });
    expect(text).toBe('07:05:09.042 ERROR boom\n    Error: x\n        at y');
  });

  it('colours the level only when asked', () => {
    expect(formatLogLine(line({ level: 40, msg: 'hm' }), { color: true })).toContain('\x1b[33mWARN \x1b[0m');
    expect(formatLogLine(line({ level: 40, msg: 'hm' }), { color: false })).not.toContain('\x1b[');
  });

  it('leaves a line that is not pino JSON as it is', () => {
    expect(formatLogLine('nodectl serve is listening', { color: false })).toBe('nodectl serve is listening');
    expect(formatLogLine('[1,2]', { color: false })).toBe('[1,2]');
  });
});

describe('prettyLogsWanted', () => {
  it('pretty on a terminal only; colour unless NO_COLOR (any value) or TERM=dumb', () => {
    expect(prettyLogsWanted({ isTTY: true }, {})).toEqual({ pretty: true, color: true });
    expect(prettyLogsWanted({ isTTY: true }, { NO_COLOR: '' })).toEqual({ pretty: true, color: false });
    expect(prettyLogsWanted({ isTTY: true }, { TERM: 'dumb' })).toEqual({ pretty: true, color: false });
    expect(prettyLogsWanted({ isTTY: false }, {})).toEqual({ pretty: false, color: false });
    expect(prettyLogsWanted({}, {})).toEqual({ pretty: false, color: false });
  });
});
