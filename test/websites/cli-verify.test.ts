import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runNodectl } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/paths.js';

/** `nodectl admin website verify --manual` with the real binary (run `npm run build` first). */

const temp = makeTempDir('nodectl-verify-cli-');
let websiteId: string;

beforeAll(async () => {
  const email = 'operator-test@example.com';
  expect(
    (
      await runNodectl(['admin', 'user', 'create', '--email', email, '--password', 'correct-horse-battery'], {
        dataDir: temp.dir,
      })
    ).exitCode,
  ).toBe(0);
  const org = await runNodectl(
    ['--json', 'admin', 'org', 'create', '--name', 'Shell Org', '--owner', email, '--plan', 'pro'],
    { dataDir: temp.dir },
  );
  const site = await runNodectl(
    [
      '--json',
      'admin',
      'website',
      'create',
      '--org',
      org.json().id,
      '--domain',
      'shell.example.com',
      '--name',
      'Shell',
    ],
    { dataDir: temp.dir },
  );
  expect(site.json().verification.state).toBe('pending');
  websiteId = site.json().id;
}, 60_000);
afterAll(() => temp.cleanup());

describe('nodectl admin website verify', () => {
  it('--manual grants the manual tier (0.5) with the note as evidence; load-website and the API see it', async () => {
    const run = await runNodectl(
      [
        '--json',
        'admin',
        'website',
        'verify',
        '--website',
        websiteId,
        '--manual',
        '--note',
        'contract signed on paper',
      ],
      { dataDir: temp.dir },
    );
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.json()).toMatchObject({
      domain: 'shell.example.com',
      state: 'verified',
      method: 'manual',
      trustTier: 'manual',
      trustScore: 0.5,
    });
    const text = await runNodectl(['admin', 'website', 'verify', '--website', websiteId, '--manual'], {
      dataDir: temp.dir,
    });
    expect(text.stdout).toContain('shell.example.com: verification verified (method manual, trust score 0.5)');
  });

  it('without --manual it exits 2 and says how owners verify; an unknown website exits 1', async () => {
    const usage = await runNodectl(['admin', 'website', 'verify', '--website', websiteId], { dataDir: temp.dir });
    expect({
      exitCode: usage.exitCode,
      said: /--manual/.test(usage.stderr) && /verification\/challenge/.test(usage.stderr),
    }).toEqual({ exitCode: 2, said: true });
    const missing = await runNodectl(['admin', 'website', 'verify', '--website', 'web_missing', '--manual'], {
      dataDir: temp.dir,
    });
    expect({ exitCode: missing.exitCode, said: /web_missing/.test(missing.stderr) }).toEqual({
      exitCode: 1,
      said: true,
    });
  });
});
