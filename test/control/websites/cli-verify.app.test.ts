import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runNodectlInProcess } from '../../helpers/cli-in-process.js';
import { createOrganization } from '../../../src/control/records/organizations.js';
import { createUser } from '../../../src/control/records/users.js';
import { createWebsite } from '../../../src/control/records/websites.js';
import { makeTempDir } from '../../helpers/paths.js';
import { withControlDb } from '../../helpers/seed.js';

/** `nodectl admin website verify --manual`, the CLI run in this process. */

const temp = makeTempDir('nodectl-verify-cli-');
let websiteId: string;

beforeAll(async () => {
  // The unverified website, written in this process (the command under test is verify).
  const email = 'operator-test@example.com';
  const site = await withControlDb(temp.dir, async (db) => {
    await createUser(db, { email, password: 'correct-horse-battery' });
    const org = createOrganization(db, { name: 'Shell Org', ownerEmail: email, plan: 'pro' });
    return createWebsite(db, { organizationId: org.id, domain: 'shell.example.com', name: 'Shell' });
  });
  expect(site.verification.state).toBe('pending');
  websiteId = site.id;
}, 60_000);
afterAll(() => temp.cleanup());

describe('nodectl admin website verify', () => {
  it('--manual grants the manual tier (0.5) with the note as evidence; load-website and the API see it', async () => {
    const run = await runNodectlInProcess(
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
    const text = await runNodectlInProcess(['admin', 'website', 'verify', '--website', websiteId, '--manual'], {
      dataDir: temp.dir,
    });
    expect(text.stdout).toContain('shell.example.com: verification verified (method manual, trust score 0.5)');
  });

  it('without --manual it exits 2 and says how owners verify; an unknown website exits 1', async () => {
    const usage = await runNodectlInProcess(['admin', 'website', 'verify', '--website', websiteId], {
      dataDir: temp.dir,
    });
    expect({
      exitCode: usage.exitCode,
      said: /--manual/.test(usage.stderr) && /verification\/challenge/.test(usage.stderr),
    }).toEqual({ exitCode: 2, said: true });
    const missing = await runNodectlInProcess(['admin', 'website', 'verify', '--website', 'web_missing', '--manual'], {
      dataDir: temp.dir,
    });
    expect({ exitCode: missing.exitCode, said: /web_missing/.test(missing.stderr) }).toEqual({
      exitCode: 1,
      said: true,
    });
  });
});
