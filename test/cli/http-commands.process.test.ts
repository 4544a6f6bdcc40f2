import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countPublish } from '../../src/control/plans/publishes.js';
import { openControlDb } from '../../src/platform/storage/control.js';
import { dataDirLayout } from '../../src/platform/storage/data-dir.js';
import { ok, startCliHttpFixture, type CliHttpFixture } from '../helpers/cli-http.js';
import { PROJECT_ROOT } from '../helpers/paths.js';
import { seedApiKey, seedConnector, seedDataDir } from '../helpers/seed.js';

/**
 * Every command over HTTP against a real spawned daemon (`npm run build` first): push the blog
 * fixture as a connector, wait for its ingest, publish, list versions and jobs, roll back, read
 * analytics, search, and manage websites, connectors and webhooks, each through --url and
 * --api-key. Where a local form exists its output is compared with the HTTP form's.
 */
const DOMAIN = 'blog.fieldnotes.example';
const NODE_BASE_URL = 'https://nodes.cli-http.example';
let fx: CliHttpFixture;
let daemon: CliHttpFixture['daemon'];
let site: CliHttpFixture['site'];
let adminKey: string;
let viewerKey: string;
let receiverUrl: string;
let connectorToken: string;
const versions: string[] = [];
const cli = (args: string[], env?: Record<string, string>) => fx.cli(args, env);
const remote = (args: string[], key?: string) => fx.remote(args, key);
const local = (args: string[]) => fx.local(args);

beforeAll(async () => {
  fx = await startCliHttpFixture({
    domain: DOMAIN,
    tempPrefix: 'nodectl-cli-http-',
    env: { NODECTL_NODE_BASE_URL: NODE_BASE_URL },
  });
  ({ daemon, site, adminKey, viewerKey, receiverUrl } = fx);
  connectorToken = (
    await seedConnector(daemon.dataDir, site.websiteId, {
      type: 'files',
      sourceTypes: ['page', 'post', 'profile', 'collection'],
    })
  ).token;
}, 120_000);
afterAll(() => fx?.stop());

describe('push, wait, publish, versions, rollback over HTTP', () => {
  it('jobs wait --url waits for the ingest of a push; jobs list and get print what the local forms print', async () => {
    ok(
      await cli([
        'push',
        join(PROJECT_ROOT, 'fixtures', 'blog', 'items.jsonl'),
        '--url',
        daemon.url,
        '--token',
        connectorToken,
        '--website',
        site.websiteId,
        '--domain',
        DOMAIN,
      ]),
    );
    const waited = ok(
      await remote(['jobs', 'wait', '--website', site.websiteId, '--kind', 'content.ingest', '--timeout', '60']),
    );
    expect(waited.stdout).toBe('no content.ingest job pending (1 succeeded, 0 dead)');
    const listed = ok(await remote(['jobs', 'list', '--website', site.websiteId]));
    expect(listed.stdout).toMatch(
      /^ID +KIND +STATE +ATTEMPTS +RUN AT +LAST ERROR\njob_\w+ +content\.ingest +succeeded +1\/5 /,
    );
    expect(listed.stdout).toBe(ok(await local(['jobs', 'list', '--website', site.websiteId])).stdout);
    const jobId = ok(await remote(['--json', 'jobs', 'list', '--website', site.websiteId])).json()[0].id;
    expect(ok(await remote(['jobs', 'get', jobId, '--website', site.websiteId])).stdout).toBe(
      ok(await local(['jobs', 'get', jobId, '--website', site.websiteId])).stdout,
    );
    expect(await remote(['jobs', 'list'])).toMatchObject({
      exitCode: 2,
      stderr: expect.stringContaining('--website <id> is required over HTTP'),
    });
  }, 120_000);

  it('publish --url --api-key --website publishes and prints the summary of the local publish', async () => {
    const published = ok(await remote(['publish', '--website', site.websiteId]));
    const lines = published.stdout.split('\n');
    expect(lines[0]).toMatch(new RegExp(`^published (\\w{26}) \\(\\d{4}-\\d{2}-\\d{2}\\.1\\) to ${daemon.url}$`));
    expect(lines.slice(1, 5).join('\n')).toMatch(
      /^files: \d+ files and manifest\.json \(\d+ uploaded, 0 carried forward\), records: \d+\nbytes: \d+ uploaded, 0 carried forward\nchanges vs \(nothing live\): \d+ added, 0 changed, 0 removed, 0 unchanged\npublic URL: https:\/\/nodes\.cli-http\.example\/blog\.fieldnotes\.example\/manifest\.json$/,
    );
    versions.push(/published (\w{26})/.exec(lines[0]!)![1]!);
    // A dry run here and on the daemon's data directory: the same lines, but where it would have written.
    const overHttp = ok(await remote(['publish', '--website', site.websiteId, '--dry-run']));
    const onDisk = ok(await local(['publish', '--website', site.websiteId, '--dry-run']));
    expect(overHttp.stdout.replace(daemon.url, '<target>')).toBe(
      onDisk.stdout.replace(join(daemon.dataDir, 'nodes'), '<target>'),
    );
    const forced = ok(await remote(['--json', 'publish', '--website', site.websiteId, '--force']));
    expect(forced.json()).toMatchObject({
      previousVersion: versions[0],
      alreadyLive: false,
      dryRun: false,
      rejected: { total: 0 },
    });
    versions.push(forced.json().versionUlid);
  }, 120_000);

  it('versions and rollback over HTTP print what the local forms print', async () => {
    const listed = ok(await remote(['versions', '--website', site.websiteId]));
    expect(listed.stdout).toMatch(new RegExp(`^ +VERSION +LABEL +GENERATED +PURGED\\n\\* +${versions[1]} `));
    expect(listed.stdout).toBe(ok(await local(['versions', '--website', site.websiteId])).stdout);
    expect(ok(await remote(['--json', 'versions', '--website', site.websiteId])).json()).toEqual(
      ok(await local(['--json', 'versions', '--website', site.websiteId])).json(),
    );
    const rolled = ok(await remote(['rollback', '--website', site.websiteId, '--to', versions[0]!]));
    expect(rolled.stdout).toMatch(
      new RegExp(`^latest now serves ${versions[0]} \\(\\d{4}-\\d{2}-\\d{2}\\.1\\); it replaced ${versions[1]}$`),
    );
    expect(
      ok(await local(['--json', 'versions', '--website', site.websiteId]))
        .json()
        .find((v: { live: boolean }) => v.live).node_version,
    ).toBe(versions[0]);
    const unknown = await remote(['rollback', '--website', site.websiteId, '--to', '01ARZ3NDEKTSV4RRFFQ69G5FAV']);
    expect(unknown.exitCode).toBe(1);
    expect(unknown.stderr).toMatch(
      /^nodectl: \[version\.not_found\] The store holds no complete version 01ARZ3NDEKTSV4RRFFQ69G5FAV .* \(request \w+\)$/,
    );
    expect((await remote(['rollback', '--website', site.websiteId, '--to', 'latest'])).exitCode).toBe(2);
  }, 120_000);

  it("exit codes as the local publish: 3 for a gate (the plan's publishes of the day), 1 for a forbidden role, 2 for a local-only flag", async () => {
    const free = await seedDataDir(daemon.dataDir, { domain: 'free.example', plan: 'free' });
    const freeKey = await seedApiKey(daemon.dataDir, free.orgId, 'editor');
    const db = openControlDb(dataDirLayout(daemon.dataDir));
    try {
      for (let i = 0; i < 10; i++) countPublish(db, free.websiteId, Date.now());
    } finally {
      db.close();
    }
    const gate = await remote(['--json', 'publish', '--website', free.websiteId], freeKey);
    expect(gate.exitCode).toBe(3);
    expect(gate.json()).toMatchObject({ ok: false, error: { code: 'entitlement.limit_reached', retryable: false } });
    expect(gate.stderr).toContain('[entitlement.limit_reached] The free plan allows 10 published versions per UTC day');
    const viewer = await remote(['publish', '--website', site.websiteId], viewerKey);
    expect(viewer.exitCode).toBe(1);
    expect(viewer.stderr).toContain('nodectl: [auth.forbidden]');
    const fixture = await remote(['publish', join(PROJECT_ROOT, 'fixtures', 'shop')]);
    expect(fixture.exitCode).toBe(2);
    expect(fixture.stderr).toContain('a fixture, --node, --golden, --target and --build-time are local only');
  }, 120_000);

  it('analytics --url prints what the local form prints', async () => {
    const args = ['analytics', '--website', site.websiteId, '--from', '2026-03-01', '--to', '2026-03-07'];
    const overHttp = ok(await remote(args));
    expect(overHttp.stdout).toMatch(/^web_\w+, 2026-03-01 to 2026-03-07 \(UTC days/);
    expect(overHttp.stdout).toBe(ok(await local(args)).stdout);
    expect((await remote(['analytics', '--website', site.websiteId, '--from', '2026-02-30'])).exitCode).toBe(2);
  });
});

describe('API-only commands: websites, connectors, webhooks, search', () => {
  it('websites list, get and create', async () => {
    const listed = ok(await remote(['websites', 'list']));
    expect(listed.stdout).toMatch(
      new RegExp(`^ID +DOMAIN +NAME +ORG\\n${site.websiteId} +${DOMAIN.replace(/\./g, '\\.')} +Example +${site.orgId}`),
    );
    expect(listed.stdout).toBe(ok(await local(['admin', 'website', 'list', '--org', site.orgId])).stdout);
    expect(ok(await remote(['websites', 'get', site.websiteId])).stdout).toMatch(
      /VERIFICATION\n.* verified \(dns_txt\)$/,
    );
    const created = ok(
      await remote(['websites', 'create', '--org', site.orgId, '--domain', 'second.example', '--name', 'Second']),
    );
    expect(created.stdout).toMatch(/^created website web_\w+ \(second\.example, verification pending\)$/);
    const again = await remote([
      'websites',
      'create',
      '--org',
      site.orgId,
      '--domain',
      'second.example',
      '--name',
      'Second',
    ]);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain('[validation.failed] The domain second.example already belongs to a website');
  });

  it('connectors list, create, rotate and delete print what nodectl admin connector prints', async () => {
    const created = ok(
      await remote([
        'connectors',
        'create',
        '--website',
        site.websiteId,
        '--type',
        'wordpress',
        '--source-types',
        'page,post',
      ]),
    );
    expect(created.stdout).toMatch(
      new RegExp(
        `^created connector (conn_\\w+) for website ${site.websiteId} \\(types page,post\\)\\ntoken \\(shown once, keep it secret\\): conn_\\w+\\.\\S+$`,
      ),
    );
    const id = /created connector (conn_\w+)/.exec(created.stdout)![1]!;
    expect(ok(await remote(['connectors', 'list', '--website', site.websiteId])).stdout).toBe(
      ok(await local(['admin', 'connector', 'list', '--website', site.websiteId])).stdout,
    );
    expect(ok(await remote(['connectors', 'rotate', id])).stdout).toMatch(
      new RegExp(`^rotated connector ${id} \\(token version 2\\)\\ntoken \\(shown once, keep it secret\\): ${id}\\.`),
    );
    expect(ok(await remote(['connectors', 'delete', id])).stdout).toBe(`connector ${id} is now revoked`);
    expect(
      ok(await local(['--json', 'admin', 'connector', 'list', '--website', site.websiteId]))
        .json()
        .find((c: { id: string }) => c.id === id).status,
    ).toBe('revoked');
    const forbidden = await remote(
      ['connectors', 'create', '--website', site.websiteId, '--type', 'files', '--source-types', 'page'],
      viewerKey,
    );
    expect(forbidden).toMatchObject({ exitCode: 1, stderr: expect.stringContaining('[auth.forbidden]') });
  });

  it('webhooks create, list, test and delete', async () => {
    const created = ok(
      await remote([
        '--json',
        'webhooks',
        'create',
        receiverUrl,
        '--website',
        site.websiteId,
        '--events',
        'node.published',
      ]),
    );
    const webhook = created.json();
    expect(webhook).toMatchObject({
      url: receiverUrl,
      events: ['node.published'],
      enabled: true,
      secret: expect.stringMatching(/^whsec_/),
    });
    expect(ok(await remote(['webhooks', 'list', '--website', site.websiteId])).stdout).toMatch(
      new RegExp(`^ID +URL +EVENTS +ENABLED +FAILING SINCE\\n${webhook.id} +${receiverUrl} +node\\.published +yes$`),
    );
    expect(ok(await remote(['webhooks', 'test', webhook.id, '--website', site.websiteId])).stdout).toMatch(
      /^\S+: delivered, http 204, \d+ ms$/,
    );
    expect(ok(await remote(['webhooks', 'delete', webhook.id, '--website', site.websiteId])).stdout).toBe(
      `deleted webhook ${webhook.id}`,
    );
    expect(ok(await remote(['--json', 'webhooks', 'list', '--website', site.websiteId])).json()).toEqual([]);
    const gone = await remote(['webhooks', 'test', webhook.id, '--website', site.websiteId]);
    expect(gone).toMatchObject({ exitCode: 1, stderr: expect.stringContaining('[webhook.not_found]') });
  });

  it('search prints the hits of the knowledge search', async () => {
    const found = ok(await remote(['search', 'field', 'notes', '--website', site.websiteId, '--limit', '2']));
    expect(found.stdout).toMatch(
      /^entity Field Notes \(entity_[0-9a-f]{24}, score [\d.]+\)\n {7}\*Field\* \*Notes\*\n/,
    );
    expect(found.stdout.split('\n').filter((l) => /^\S/.test(l))).toHaveLength(2);
    expect(ok(await remote(['--json', 'search', 'zzzunknownword', '--website', site.websiteId])).json()).toEqual([]);
    expect((await remote(['search', 'x', '--website', site.websiteId, '--kind', 'page'])).exitCode).toBe(2);
  });
});

describe('a bad --url, an unreachable daemon, a wrong key', () => {
  it('a --url that is not an http(s) URL is bad usage: exit 2, nothing sent', async () => {
    const run = await cli(['versions', '--website', site.websiteId, '--url', 'ftp://127.0.0.1', '--api-key', adminKey]);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toBe(
      'nodectl: --url must be an http(s) URL such as http://127.0.0.1:8787 (got "ftp://127.0.0.1")',
    );
  });

  it('a daemon that does not answer: exit 1, says where it looked', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    const run = await cli(['publish', '--website', site.websiteId, '--url', url, '--api-key', adminKey]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(
      `nodectl: [network.error] cannot reach ${url}: ECONNREFUSED; check --url (or NODECTL_URL) and that nodectl serve runs there`,
    );
  });

  it('a URL that is not a nodectl daemon: exit 1, response.invalid', async () => {
    const run = await cli([
      'websites',
      'get',
      site.websiteId,
      '--url',
      receiverUrl.replace('/hook', ''),
      '--api-key',
      adminKey,
    ]);
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain('[response.invalid]');
  });

  it('a wrong or revoked API key: exit 1, [auth.unauthenticated]; a malformed one: exit 2', async () => {
    const wrong = await remote(['versions', '--website', site.websiteId], 'nk_live_00000000000000000000000000000000');
    expect(wrong.exitCode).toBe(1);
    expect(wrong.stderr).toMatch(
      /^nodectl: \[auth\.unauthenticated\] The API key is unknown or revoked \(or the access token is not valid\)\. \(request \w+\)$/,
    );
    const malformed = await remote(['versions', '--website', site.websiteId], 'secret');
    expect(malformed.exitCode).toBe(2);
    expect(malformed.stderr).toContain('nodectl: --api-key must be an API key: nk_live_ and 32 letters and digits');
  });
});

describe('the binary', () => {
  it('prints and exits as the in-process runs these tests use: a table, JSON, an API error, bad usage', async () => {
    const cases = [
      ['websites', 'list'],
      ['--json', 'websites', 'get', site.websiteId],
      ['websites', 'get', 'web_00000000000000000000000000'],
      ['websites', 'get'],
    ];
    for (const args of cases) {
      const binary = await fx.remoteBinary(args);
      const here = await remote(args);
      expect({ exitCode: here.exitCode, stdout: here.stdout, stderr: here.stderr }).toEqual({
        exitCode: binary.exitCode,
        stdout: binary.stdout,
        stderr: binary.stderr.replace(/\(request \w+\)/, (id) => here.stderr.match(/\(request \w+\)/)?.[0] ?? id),
      });
    }
  });
});
