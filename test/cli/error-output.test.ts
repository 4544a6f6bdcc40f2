import { describe, expect, it } from 'vitest';
import { errorEnvelope, fieldProblemsOf, formatFailureText, type CliFailure } from '../../src/cli/error-output.js';

const failure = (over: Partial<CliFailure> = {}): CliFailure => ({
  code: 'validation.failed',
  message: 'The website is not valid; see details.fields.',
  details: { fields: [{ path: 'domain', message: 'must be a host name such as example.com' }] },
  retryable: false,
  exitCode: 1,
  showCode: true,
  ...over,
});

describe('formatFailureText', () => {
  it('prints the headline, then one `  <path>: <message>` line per field', () => {
    expect(formatFailureText(failure())).toBe(
      'nodectl: [validation.failed] The website is not valid; see details.fields.\n' +
        '  domain: must be a host name such as example.com\n',
    );
  });

  it('a usage error reads without a code; no fields, one line', () => {
    expect(
      formatFailureText(
        failure({ code: 'cli.usage', message: '--website <id> is required', details: {}, showCode: false }),
      ),
    ).toBe('nodectl: --website <id> is required\n');
  });
});

describe('fieldProblemsOf', () => {
  it('keeps entries with a message, names an empty path (root), ignores the rest', () => {
    expect(
      fieldProblemsOf({
        fields: [{ path: '', message: 'required' }, { path: 'a.b', message: 'too long' }, 'junk', { path: 'x' }],
      }),
    ).toEqual([
      { path: '(root)', message: 'required' },
      { path: 'a.b', message: 'too long' },
    ]);
    expect(fieldProblemsOf({})).toEqual([]);
    expect(fieldProblemsOf({ fields: 'no' })).toEqual([]);
  });
});

describe('errorEnvelope', () => {
  it('is the API envelope: ok false, code, message, details, retryable', () => {
    expect(errorEnvelope(failure())).toEqual({
      ok: false,
      error: {
        code: 'validation.failed',
        message: 'The website is not valid; see details.fields.',
        details: { fields: [{ path: 'domain', message: 'must be a host name such as example.com' }] },
        retryable: false,
      },
    });
  });
});
