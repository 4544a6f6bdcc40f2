import { afterAll, describe, expect, it } from 'vitest';
import { runNodectlInProcess } from '../helpers/cli-in-process.js';
import { makeTempDir } from '../helpers/paths.js';

// Issue 37 item 4: a failed command explains itself, in text and under --json alike.
describe('how a failed command reports itself', () => {
  const temp = makeTempDir('nodectl-errors-');
  afterAll(() => temp.cleanup());
  const badWebsite = ['admin', 'website', 'create', '--org', 'org_x', '--domain', 'not a domain', '--name', 'N'];

  it('a validation error prints one `  <path>: <message>` line per field (it only said "see details.fields")', async () => {
    const run = await runNodectlInProcess(badWebsite, { dataDir: temp.dir });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(/^nodectl: \[validation\.failed\] The website is not valid; see details\.fields\.$/m);
    expect(run.stderr).toMatch(/^ {2}domain: \S.*$/m);
    expect(run.stdout).toBe('');
  });

  it('--json prints the whole error envelope, details.fields included, on stdout', async () => {
    const run = await runNodectlInProcess(['--json', ...badWebsite], { dataDir: temp.dir });
    expect(run.exitCode).toBe(1);
    const envelope = run.json();
    expect(envelope).toMatchObject({ ok: false, error: { code: 'validation.failed', retryable: false } });
    expect(envelope.error.details.fields).toEqual([{ path: 'domain', message: expect.any(String) }]);
  });

  it.each([
    ['websites', ['websites', 'list']],
    ['versions', ['versions', '--url', 'http://127.0.0.1:9']],
    ['jobs', ['jobs', 'list', '--url', 'http://127.0.0.1:9']],
    ['search', ['search', 'anything', '--url', 'http://127.0.0.1:9']],
  ])(
    '%s --json prints the envelope of a usage error on stdout and exits 2 (it printed nothing)',
    async (_name, args) => {
      const run = await runNodectlInProcess([...args, '--json'], { dataDir: temp.dir });
      expect(run.exitCode, run.stderr).toBe(2);
      expect(run.json()).toMatchObject({ ok: false, error: { code: 'cli.usage', message: expect.any(String) } });
    },
  );

  it('an unknown flag under --json: commander explains on stderr, the envelope goes to stdout, exit 2', async () => {
    const run = await runNodectlInProcess(['--json', 'serve', '--prot', '1']);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/unknown option '--prot'/);
    expect(run.json()).toMatchObject({ ok: false, error: { code: 'cli.usage' } });
  });
});
