import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { makeTempDir, PROJECT_ROOT } from '../helpers/paths.js';

/** The shell block of the README's five-minute walk-through, exactly as a reader copies it. */
function walkthroughScript(): string {
  const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
  const section = /<!-- walkthrough:begin -->\n```sh\n([\s\S]*?)```\n<!-- walkthrough:end -->/.exec(readme);
  if (!section) throw new Error('README.md has no walkthrough:begin/end block');
  return section[1]!;
}

let temp: { dir: string; cleanup: () => void };
let daemon: TestDaemon;

beforeAll(async () => {
  temp = makeTempDir('nodectl-walkthrough-');
  daemon = await startTestDaemon({ dataDir: temp.dir });
}, 60_000);
afterAll(async () => {
  await daemon?.stop();
  temp?.cleanup();
});

describe('README five-minute walk-through', () => {
  it('creates a site and connector, pushes, publishes and reads a valid node, as written', async () => {
    const { host, port } = new URL(daemon.url);
    // The README assumes the default address; the test daemon listens on an ephemeral port.
    const script = walkthroughScript().replaceAll('127.0.0.1:8787', host);
    const run = await execa('bash', ['-e', '-o', 'pipefail', '-c', script], {
      cwd: PROJECT_ROOT,
      reject: false,
      env: { NODECTL_DATA_DIR: temp.dir, NODECTL_PORT: port, NODECTL_LOG_LEVEL: 'warn', NODECTL_CONNECTOR_TOKEN: '' },
      timeout: 120_000,
    });
    expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toMatch(/accepted 8, skipped 0, errored 0/);
    expect(run.stdout).toMatch(/no content\.ingest job pending \(1 succeeded, 0 dead\)/);
    expect(run.stdout).toMatch(/published \w{26} \(\d{4}-\d{2}-\d{2}\.1\)/);
    expect(run.stdout).toContain('# Field Notes\n');
    expect(run.stdout).toContain('[Entities (en)](entities.en.jsonl)');
    expect(run.stdout).toMatch(
      /^valid: http:\/\/127\.0\.0\.1:\d+\/nodes\/blog\.fieldnotes\.example\/ \(node \w{26}, .*\): \d+ files and manifest\.json, \d+ records \(\d+ JSONL lines in all\)$/m,
    );
    expect(run.stdout).toMatch(
      /"user":\{"id":"usr_\w+","email":"ada@example\.com","emailVerified":true,.*"role":"organization_owner"/,
    );
  }, 150_000);
});
