import { describe, expect, it, afterAll } from 'vitest';
import { runNodectl } from '../helpers/cli.js';
import { runNodectlInProcess } from '../helpers/cli-in-process.js';
import { makeTempDir } from '../helpers/paths.js';
import { buildProgram } from '../../src/cli/main.js';
import { JobQueue } from '../../src/platform/jobs/queue.js';
import { contentIngestJob } from '../../src/ingest/graph/content-ingest-job.js';
import { openControlDb } from '../../src/platform/storage/control.js';
import { dataDirLayout } from '../../src/platform/storage/data-dir.js';

const temp = makeTempDir();
afterAll(() => temp.cleanup());

describe('the nodectl binary', () => {
  it('--help lists every command with a one-line description', async () => {
    const run = await runNodectl(['--help']);
    expect(run.exitCode).toBe(0);
    for (const command of buildProgram().commands) {
      expect(command.description().length).toBeGreaterThan(0);
      expect(run.stdout).toMatch(new RegExp(`^\\s+${command.name()}\\b`, 'm'));
    }
  });

  it('rollback --help lists a purged version (publish.version_purged) among the causes of exit 1 (it named only an unknown version and a held lock)', () => {
    const rollback = buildProgram().commands.find((c) => c.name() === 'rollback')!;
    let help = '';
    rollback.configureOutput({ writeOut: (text) => void (help += text) });
    rollback.outputHelp();
    expect(help).toMatch(
      /Exit codes: 0 rolled back, 1 failed \(unknown version, a purged version \(publish\.version_purged\), lock held\), 2 bad usage[.;]/,
    );
  });

  it('--version prints the package version', async () => {
    const run = await runNodectl(['--version']);
    expect(run.exitCode).toBe(0);
    expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('an unknown flag exits 2 with what is wrong, never a stack trace', async () => {
    const run = await runNodectl(['serve', '--prot', '1']);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/unknown option '--prot'/);
    expect(run.stderr).toMatch(/--port/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('a bad choice exits 2 and lists the valid choices', async () => {
    const run = await runNodectl(['admin', 'org', 'create', '--name', 'x', '--owner', 'a@b.co', '--plan', 'gold'], {
      dataDir: temp.dir,
    });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/Allowed choices are free, pro, business/);
  });

  it('an unknown command exits 2', async () => {
    const run = await runNodectl(['frobnicate']);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/unknown command 'frobnicate'/);
  });
});

// What the commands do with a data directory: the CLI run in this process.
describe('nodectl admin, config and jobs on a data directory', () => {
  it('bootstraps a user, an organization and a website with --json output, then lists them', async () => {
    const user = await runNodectlInProcess(
      ['--json', 'admin', 'user', 'create', '--email', 'Owner@Example.com', '--password', 'a-long-password'],
      { dataDir: temp.dir },
    );
    expect(user.exitCode).toBe(0);
    expect(user.json()).toMatchObject({ id: expect.stringMatching(/^usr_/), email: 'owner@example.com' });
    expect(user.stdout).not.toContain('a-long-password');
    const org = await runNodectlInProcess(
      ['--json', 'admin', 'org', 'create', '--name', 'Acme Shop', '--owner', 'owner@example.com', '--plan', 'pro'],
      { dataDir: temp.dir },
    );
    expect(org.json()).toMatchObject({ id: expect.stringMatching(/^org_/), slug: 'acme-shop', plan: 'pro' });
    const site = await runNodectlInProcess(
      [
        '--json',
        'admin',
        'website',
        'create',
        '--org',
        org.json().id,
        '--domain',
        'Shop.Example.com',
        '--name',
        'Shop',
        '--verified',
        'dns_txt',
      ],
      { dataDir: temp.dir },
    );
    expect(site.exitCode).toBe(0);
    expect(site.json()).toMatchObject({
      id: expect.stringMatching(/^web_/),
      domain: 'shop.example.com',
      verification: { method: 'dns_txt', state: 'verified' },
    });
    const key = await runNodectlInProcess(
      ['--json', 'admin', 'api-key', 'create', '--org', org.json().id, '--role', 'editor'],
      {
        dataDir: temp.dir,
      },
    );
    expect(key.json().key).toMatch(/^nk_live_[0-9A-Za-z]{32}$/);
    const keys = await runNodectlInProcess(['--json', 'admin', 'api-key', 'list'], { dataDir: temp.dir });
    expect(keys.stdout).not.toContain(key.json().key);
    const sites = await runNodectlInProcess(['--json', 'admin', 'website', 'list'], { dataDir: temp.dir });
    expect(sites.json().map((s: { domain: string }) => s.domain)).toEqual(['shop.example.com']);
    const human = await runNodectlInProcess(['admin', 'org', 'list'], { dataDir: temp.dir });
    expect(human.stdout).toMatch(/ID\s+NAME\s+SLUG\s+PLAN/);
  });

  it('admin website create --verified takes a trust tier name (well_known) and answers the contract name (well_known_file)', async () => {
    await runNodectlInProcess(
      ['admin', 'user', 'create', '--email', 'names@example.com', '--password', 'a-long-password'],
      {
        dataDir: temp.dir,
      },
    );
    const org = await runNodectlInProcess(
      ['--json', 'admin', 'org', 'create', '--name', 'Names', '--owner', 'names@example.com', '--plan', 'pro'],
      { dataDir: temp.dir },
    );
    const site = await runNodectlInProcess(
      [
        '--json',
        'admin',
        'website',
        'create',
        '--org',
        org.json().id,
        '--domain',
        'names.example.com',
        '--name',
        'Names',
        '--verified',
        'well_known',
      ],
      { dataDir: temp.dir },
    );
    expect({ exitCode: site.exitCode, stderr: site.stderr }).toEqual({ exitCode: 0, stderr: '' });
    expect(site.json().verification).toEqual({ method: 'well_known_file', state: 'verified' });
  });

  it('bad input exits 1 with the reason: a short password, an unknown owner, a bad domain', async () => {
    const short = await runNodectlInProcess(
      ['admin', 'user', 'create', '--email', 'x@example.com', '--password', 'short'],
      {
        dataDir: temp.dir,
      },
    );
    expect(short.exitCode).toBe(1);
    expect(short.stderr).toMatch(/validation.failed/);
    const owner = await runNodectlInProcess(
      ['admin', 'org', 'create', '--name', 'X', '--owner', 'nobody@example.com'],
      {
        dataDir: temp.dir,
      },
    );
    expect(owner.exitCode).toBe(1);
    expect(owner.stderr).toMatch(/No user with email nobody@example.com/);
    const domain = await runNodectlInProcess(
      ['admin', 'website', 'create', '--org', 'org_x', '--domain', 'https://x.com/path', '--name', 'X'],
      { dataDir: temp.dir },
    );
    expect(domain.exitCode).toBe(1);
    expect(domain.stderr).toMatch(/validation.failed/);
  });

  it('config prints settings with their sources and masks secrets', async () => {
    const run = await runNodectlInProcess(['--json', 'config'], {
      dataDir: temp.dir,
      env: { NODECTL_S3_SECRET_ACCESS_KEY: 'do-not-print-me', NODECTL_PORT: '9999' },
    });
    expect(run.exitCode).toBe(0);
    expect(run.stdout).not.toContain('do-not-print-me');
    const settings = run.json().settings as Array<{ name: string; value: unknown; source: string }>;
    expect(settings.find((s) => s.name === 'port')).toMatchObject({ value: 9999, source: 'env' });
    expect(settings.find((s) => s.name === 's3SecretAccessKey')).toMatchObject({ value: '********', source: 'env' });
    expect(settings.find((s) => s.name === 'dataDir')).toMatchObject({ source: 'flag' });
  });

  it('jobs list and jobs run work on the data directory', async () => {
    const run = await runNodectlInProcess(['--json', 'jobs', 'run', 'all'], { dataDir: temp.dir });
    expect(run.exitCode).toBe(0);
    expect(run.json().ran).toBeGreaterThan(0);
    const list = await runNodectlInProcess(['--json', 'jobs', 'list', '--state', 'succeeded'], { dataDir: temp.dir });
    expect(list.json().length).toBe(run.json().ran);
    const bad = await runNodectlInProcess(['jobs', 'run', 'nope'], { dataDir: temp.dir });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/valid kinds: all, /);
  });

  it('jobs get prints the items a job refused, and how many are not listed', async () => {
    const db = openControlDb(dataDirLayout(temp.dir));
    let jobId: string;
    try {
      const queue = new JobQueue(db, { itemErrorsListed: 1 });
      jobId = queue.enqueue(contentIngestJob, { website_id: 'web_01JITEMERRORS000000000000', raw_content_ids: [] }).id;
      const refused = (itemId: string) => ({
        itemId,
        itemType: 'post',
        url: null,
        code: 'item.body_invalid',
        message: `stored body of ${itemId} is not a valid IngestItem; push the item again`,
      });
      queue.addItemErrors(jobId, [refused('first'), refused('second')]);
      // Finished, so it leaves `jobs wait` nothing pending.
      expect(queue.claim('cli-test', ['content.ingest'])?.id).toBe(jobId);
      queue.complete(jobId, 'cli-test');
    } finally {
      db.close();
    }
    const text = await runNodectlInProcess(['jobs', 'get', jobId], { dataDir: temp.dir });
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.stdout).toMatch(
      /2 item\(s\) refused:\nITEM +CODE +MESSAGE\npost:first +item\.body_invalid +stored body of first/,
    );
    expect(text.stdout).toContain('1 more not shown');
    const json = await runNodectlInProcess(['--json', 'jobs', 'get', jobId], { dataDir: temp.dir });
    expect(json.json()).toMatchObject({ id: jobId, itemErrorCount: 2, itemErrors: [{ itemId: 'first' }] });
  });

  it('jobs wait returns at once when nothing is pending, and exits 1 naming the cause on timeout', async () => {
    const idle = await runNodectlInProcess(['--json', 'jobs', 'wait', '--kind', 'content.ingest'], {
      dataDir: temp.dir,
    });
    expect(idle.exitCode, idle.stderr).toBe(0);
    expect(idle.json()).toMatchObject({ kind: 'content.ingest', queued: 0, running: 0 });
    const db = openControlDb(dataDirLayout(temp.dir));
    try {
      new JobQueue(db).enqueue(contentIngestJob, { website_id: 'web_01JWAITTEST00000000000000', raw_content_ids: [] });
    } finally {
      db.close();
    }
    const stuck = await runNodectlInProcess(['jobs', 'wait', '--timeout', '1'], { dataDir: temp.dir });
    expect(stuck.exitCode).toBe(1);
    expect(stuck.stderr).toMatch(
      /1 content\.ingest job\(s\) still queued or running after 1 s; is `nodectl serve` running/,
    );
    const bad = await runNodectlInProcess(['jobs', 'wait', '--timeout', 'soon'], { dataDir: temp.dir });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('--timeout must be a number of seconds');
  });
});
