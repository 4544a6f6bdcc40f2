import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emitEvent } from '../../src/control/events/emit.js';
import { openControlDb } from '../../src/platform/storage/control.js';
import { dataDirLayout } from '../../src/platform/storage/data-dir.js';
import type { CliRun } from '../helpers/cli.js';
import { ok, startCliHttpFixture, type CliHttpFixture } from '../helpers/cli-http.js';
import { withControlDb } from '../helpers/seed.js';
import { poll } from '../helpers/until.js';

/**
 * The management commands over HTTP against a real spawned daemon (`npm run build` first):
 * connectors suspend and resume, webhooks update and deliveries, websites update and delete.
 * Each: its success (text and --json), a bad flag (exit 2, nothing sent) and an API error (exit 1).
 */
const DOMAIN = 'manage.cli-http.example';
let fx: CliHttpFixture;
let daemon: CliHttpFixture['daemon'];
let site: CliHttpFixture['site'];
let adminKey: string;
let viewerKey: string;
let receiverUrl: string;
const cli = (args: string[]) => fx.cli(args);
const remote = (args: string[], key?: string) => fx.remote(args, key);
const local = (args: string[]) => fx.local(args);
/** Bad usage: exit 2 with the message, nothing on stdout. */
const usage = (run: CliRun, message: string) =>
  expect(run).toMatchObject({ exitCode: 2, stdout: '', stderr: expect.stringContaining(message) });
/** An API error: exit 1, `nodectl: [code] ... (request <id>)`, then a `  <path>: <message>` line per invalid field. */
const apiError = (run: CliRun, code: string) => {
  expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(1);
  expect(run.stderr).toMatch(
    new RegExp(`^nodectl: \\[${code.replace('.', '\\.')}\\] .* \\(request \\w+\\)(\\n {2}\\S+: .+)*\\n?$`),
  );
};

beforeAll(async () => {
  fx = await startCliHttpFixture({ domain: DOMAIN, tempPrefix: 'nodectl-cli-manage-' });
  ({ daemon, site, adminKey, viewerKey, receiverUrl } = fx);
}, 120_000);
afterAll(() => fx?.stop());

describe('connectors suspend and resume', () => {
  it('suspend and resume print what nodectl admin connector prints; the local list sees the change', async () => {
    const id = ok(
      await local([
        '--json',
        'admin',
        'connector',
        'create',
        '--website',
        site.websiteId,
        '--type',
        'files',
        '--source-types',
        'page',
      ]),
    ).json().id as string;
    expect(ok(await remote(['connectors', 'suspend', id])).stdout).toBe(`connector ${id} is now suspended`);
    expect(
      ok(await local(['--json', 'admin', 'connector', 'list', '--website', site.websiteId]))
        .json()
        .find((c: { id: string }) => c.id === id).status,
    ).toBe('suspended');
    expect(ok(await remote(['--json', 'connectors', 'resume', id])).json()).toMatchObject({
      id,
      status: 'active',
      scope: { websiteId: site.websiteId, sourceTypes: ['page'] },
    });
    expect(
      ok(await local(['--json', 'admin', 'connector', 'list', '--website', site.websiteId]))
        .json()
        .find((c: { id: string }) => c.id === id).status,
    ).toBe('active');
  });

  it('no connector id is bad usage; an unknown one or a role below organization_admin is an API error', async () => {
    usage(await remote(['connectors', 'suspend']), "missing required argument 'id'");
    apiError(await remote(['connectors', 'resume', 'conn_01ARZ3NDEKTSV4RRFFQ69G5FAV']), 'connector.not_found');
    const id = ok(
      await local([
        '--json',
        'admin',
        'connector',
        'create',
        '--website',
        site.websiteId,
        '--type',
        'files',
        '--source-types',
        'page',
      ]),
    ).json().id as string;
    apiError(await remote(['connectors', 'suspend', id], viewerKey), 'auth.forbidden');
  });
});

describe('webhooks update and deliveries', () => {
  it('update changes the endpoint, events and description, disables and enables', async () => {
    const webhook = ok(
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
    ).json();
    const disabled = ok(await remote(['webhooks', 'update', webhook.id, '--website', site.websiteId, '--disable']));
    expect(disabled.stdout).toBe(
      `updated webhook ${webhook.id}: ${receiverUrl} (events node.published, enabled no (manual))`,
    );
    const changed = ok(
      await remote([
        '--json',
        'webhooks',
        'update',
        webhook.id,
        '--website',
        site.websiteId,
        '--endpoint',
        `${receiverUrl}/v2`,
        '--events',
        'node.published,ingest.completed',
        '--description',
        'CI hook',
        '--enable',
      ]),
    );
    expect(changed.json()).toMatchObject({
      id: webhook.id,
      url: `${receiverUrl}/v2`,
      events: ['ingest.completed', 'node.published'],
      description: 'CI hook',
      enabled: true,
      disabledReason: null,
    });
    expect(changed.json()).not.toHaveProperty('secret');
    expect(ok(await remote(['webhooks', 'list', '--website', site.websiteId])).stdout).toContain(
      `${webhook.id}  ${receiverUrl}/v2  ingest.completed,node.published  yes`,
    );
  });

  it('update: flags the route would refuse are bad usage, before anything is sent', async () => {
    usage(
      await remote(['webhooks', 'update', 'whk_x', '--website', site.websiteId]),
      'give at least one of --endpoint, --events, --description, --enable, --disable',
    );
    usage(
      await remote(['webhooks', 'update', 'whk_x', '--website', site.websiteId, '--enable', '--disable']),
      '--enable and --disable exclude each other',
    );
    usage(
      await remote(['webhooks', 'update', 'whk_x', '--website', site.websiteId, '--events', 'node.exploded']),
      'nodectl: --events ',
    );
    usage(
      await remote([
        'webhooks',
        'update',
        'whk_x',
        '--website',
        site.websiteId,
        '--endpoint',
        'ftp://hooks.example.com',
      ]),
      'nodectl: --endpoint must be an absolute http(s) URL',
    );
  });

  it('update of an unknown subscription is an API error', async () => {
    apiError(
      await remote(['webhooks', 'update', 'whk_01ARZ3NDEKTSV4RRFFQ69G5FAV', '--website', site.websiteId, '--disable']),
      'webhook.not_found',
    );
  });

  it('deliveries lists the deliveries of a subscription, newest first, at most --limit', async () => {
    const webhook = ok(
      await remote([
        '--json',
        'webhooks',
        'create',
        receiverUrl,
        '--website',
        site.websiteId,
        '--events',
        'ingest.completed',
      ]),
    ).json();
    const db = openControlDb(dataDirLayout(daemon.dataDir));
    const events: string[] = [];
    try {
      for (let i = 0; i < 3; i++)
        events.push(
          emitEvent(
            db,
            {
              type: 'ingest.completed',
              website_id: site.websiteId,
              data: { job_id: `job_${i}`, processed: i, failed: 0, skipped: 0, removed: 0, warned: 0 },
            },
            Date.now() + i,
          )!,
        );
    } finally {
      db.close();
    }
    // The daemon's delivery lane sends them to the receiver, which answers 204. Nothing tells this
    // process when the daemon has recorded that: its database is read (not the CLI spawned) until it has.
    const succeeded = () =>
      withControlDb(daemon.dataDir, (control) =>
        control
          .prepare("SELECT COUNT(*) FROM webhook_deliveries WHERE subscription_id = ? AND state = 'succeeded'")
          .pluck()
          .get(webhook.id) === 3
          ? true
          : undefined,
      );
    await poll(succeeded, 'three succeeded deliveries', { timeoutMs: 20_000 });
    expect(
      ok(
        await remote([
          '--json',
          'webhooks',
          'deliveries',
          webhook.id,
          '--website',
          site.websiteId,
          '--state',
          'succeeded',
        ]),
      ).json().length,
    ).toBe(3);
    const listed = ok(
      await remote(['--json', 'webhooks', 'deliveries', webhook.id, '--website', site.websiteId]),
    ).json();
    expect(listed.map((d: { eventId: string }) => d.eventId)).toEqual([...events].reverse());
    expect(listed[0]).toMatchObject({
      subscriptionId: webhook.id,
      eventType: 'ingest.completed',
      state: 'succeeded',
      attempts: 1,
      lastStatus: 204,
    });
    const table = ok(await remote(['webhooks', 'deliveries', webhook.id, '--website', site.websiteId, '--limit', '2']));
    const lines = table.stdout.split('\n');
    expect(lines[0]).toMatch(/^ID +EVENT +STATE +ATTEMPTS +LAST STATUS +LAST ERROR +CREATED$/);
    expect(lines.slice(1).map((l) => l.split(/ +/)[0])).toEqual([listed[0].id, listed[1].id]);
    expect(lines[1]).toMatch(/ +ingest\.completed +succeeded +1 +204 +\d{4}-\d\d-\d\dT/);
    expect(
      ok(
        await remote([
          '--json',
          'webhooks',
          'deliveries',
          webhook.id,
          '--website',
          site.websiteId,
          '--state',
          'failed',
        ]),
      ).json(),
    ).toEqual([]);
  }, 60_000);

  it('deliveries reads page after page up to --limit', async () => {
    const webhook = ok(
      await remote([
        '--json',
        'webhooks',
        'create',
        receiverUrl,
        '--website',
        site.websiteId,
        '--events',
        'node.taken_down',
      ]),
    ).json();
    const db = openControlDb(dataDirLayout(daemon.dataDir));
    try {
      for (let i = 0; i < 105; i++)
        emitEvent(
          db,
          { type: 'node.taken_down', website_id: site.websiteId, data: { previous_version: null, removed_files: i } },
          Date.now() + i,
        );
    } finally {
      db.close();
    }
    const all = ok(
      await remote(['--json', 'webhooks', 'deliveries', webhook.id, '--website', site.websiteId, '--limit', '150']),
    ).json();
    expect(all).toHaveLength(105);
    expect(new Set(all.map((d: { id: string }) => d.id)).size).toBe(105);
    expect(
      all.every(
        (d: { subscriptionId: string; eventType: string }) =>
          d.subscriptionId === webhook.id && d.eventType === 'node.taken_down',
      ),
    ).toBe(true);
    const first = ok(
      await remote(['--json', 'webhooks', 'deliveries', webhook.id, '--website', site.websiteId, '--limit', '101']),
    ).json();
    expect(first.map((d: { id: string }) => d.id)).toEqual(all.slice(0, 101).map((d: { id: string }) => d.id));
  }, 60_000);

  it('deliveries: a bad --state or --limit is bad usage; an unknown subscription is an API error', async () => {
    usage(
      await remote(['webhooks', 'deliveries', 'whk_x', '--website', site.websiteId, '--state', 'lost']),
      '--state must be one of pending, succeeded, failed; got lost',
    );
    usage(
      await remote(['webhooks', 'deliveries', 'whk_x', '--website', site.websiteId, '--limit', '0']),
      '--limit must be a whole number from 1 to 10000',
    );
    apiError(
      await remote(['webhooks', 'deliveries', 'whk_01ARZ3NDEKTSV4RRFFQ69G5FAV', '--website', site.websiteId]),
      'webhook.not_found',
    );
  });
});

describe('retries over HTTP', () => {
  it('a refused connection is retried twice, each retry said on stderr, then exit 1 with network.error', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    const run = await cli(['--json', 'connectors', 'suspend', 'conn_x', '--url', url, '--api-key', adminKey]);
    expect(run.exitCode).toBe(1);
    // --json: the error envelope on stdout (it printed nothing there), the lines on stderr.
    expect(run.json()).toMatchObject({ ok: false, error: { code: 'network.error', retryable: true } });
    const lines = run.stderr.split('\n');
    expect(lines[0]).toMatch(
      new RegExp(`^nodectl: \\[network\\.error\\] cannot reach ${url}: ECONNREFUSED; retry 1 of 2 in 0\\.[2-5] s$`),
    );
    expect(lines[1]).toMatch(/; retry 2 of 2 in (0\.[5-9]|1\.0) s$/);
    expect(lines[2]).toBe(
      `nodectl: [network.error] cannot reach ${url}: ECONNREFUSED; check --url (or NODECTL_URL) and that nodectl serve runs there`,
    );
  });
});

describe('websites update and delete', () => {
  it('update changes the name, brand and language; --no-brand gives the name back', async () => {
    const updated = ok(
      await remote([
        'websites',
        'update',
        site.websiteId,
        '--name',
        'Field Manual',
        '--brand',
        'FM',
        '--language',
        'fr',
      ]),
    );
    expect(updated.stdout).toBe(
      `updated website ${site.websiteId} (${DOMAIN}): name Field Manual, brand FM, language fr`,
    );
    expect(ok(await remote(['--json', 'websites', 'update', site.websiteId, '--no-brand'])).json()).toMatchObject({
      id: site.websiteId,
      name: 'Field Manual',
      brand: null,
      defaultLanguage: 'fr',
    });
    expect(ok(await remote(['--json', 'websites', 'get', site.websiteId], viewerKey)).json()).toMatchObject({
      name: 'Field Manual',
      brand: null,
      defaultLanguage: 'fr',
    });
  });

  it('update: no change or a value the route would refuse is bad usage; a viewer is refused by the API', async () => {
    usage(
      await remote(['websites', 'update', site.websiteId]),
      'give at least one of --name, --brand, --no-brand, --language',
    );
    usage(await remote(['websites', 'update', site.websiteId, '--name', '  ']), 'nodectl: --name must not be empty');
    usage(await remote(['websites', 'update', site.websiteId, '--language', 'not a language']), 'nodectl: --language ');
    apiError(await remote(['websites', 'update', site.websiteId, '--name', 'Viewer'], viewerKey), 'auth.forbidden');
  });

  it('delete needs the domain typed again; the wrong one is an API error, the right one deletes', async () => {
    const created = ok(
      await remote([
        '--json',
        'websites',
        'create',
        '--org',
        site.orgId,
        '--domain',
        'doomed.example',
        '--name',
        'Doomed',
      ]),
    ).json();
    usage(await remote(['websites', 'delete', created.id]), "required option '--confirm <domain>' not specified");
    apiError(await remote(['websites', 'delete', created.id, '--confirm', DOMAIN]), 'validation.failed');
    expect(ok(await remote(['websites', 'delete', created.id, '--confirm', 'Doomed.Example'])).stdout).toBe(
      `deleted website ${created.id} (doomed.example) with its graph and every published version`,
    );
    apiError(await remote(['websites', 'get', created.id]), 'website.not_found');
    expect(
      ok(await remote(['--json', 'websites', 'list', '--org', site.orgId]))
        .json()
        .map((w: { id: string }) => w.id),
    ).toEqual([site.websiteId]);
  }, 60_000);
});
