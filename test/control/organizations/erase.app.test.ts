import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { computeItemChecksum } from '../../../src/platform/contract/checksum.js';
import { createConnector, rotateConnector } from '../../../src/control/connectors/connectors.js';
import { ERASE_STATEMENTS, KEPT_TABLES } from '../../../src/control/organizations/erase-rows.js';
import { siteHashOf } from '../../../src/output/publish/layout.js';
import { runPublish } from '../../../src/output/publish/run-publish.js';
import { createTargetFromSettings, type PublishTarget } from '../../../src/output/publish/targets/index.js';
import { readMasterKey } from '../../../src/platform/storage/data-dir.js';
import { createApiKey } from '../../../src/control/records/api-keys.js';
import { setOrganizationPlan } from '../../../src/control/records/organizations.js';
import { createWebsite } from '../../../src/control/records/websites.js';
import { injectSigned } from '../../helpers/app.js';
import { controlTableNames } from '../../helpers/control-tables.js';
import { startLocalS3, type LocalS3 } from '../../output/publish/s3-server.js';
import { buildOrgApp, outcome, type OrgTestApp } from './support.js';

let s3: LocalS3;
beforeAll(async () => {
  s3 = await startLocalS3('erase');
}, 30_000);
afterAll(async () => s3?.stop());

let t: OrgTestApp;
let owner: string;
beforeEach(async () => {
  // The daemon publishes to the S3 bucket; the local folder is a target too (a site published there earlier, or by the CLI).
  t = await buildOrgApp({
    settings: {
      publishTarget: 's3',
      s3Bucket: s3.bucket,
      s3Endpoint: s3.endpoint,
      s3ForcePathStyle: true,
      s3AccessKeyId: 'S3RVER',
      s3SecretAccessKey: 'S3RVER',
      s3Region: 'us-east-1',
      s3Prefix: `run-${randomUUID().slice(0, 8)}`,
    },
  });
  owner = t.user('owner@corp.test');
});
afterEach(async () => t.close());

interface SeededOrg {
  id: string;
  slug: string;
  websites: Array<{ id: string; domain: string; connectorId: string; token: string }>;
  keyIds: string[];
}

/** An organization with websites, connectors, ingested and processed items, keys, a cancelled transfer, an invitation and audit rows. */
async function seedOrganization(name: string, domains: string[]): Promise<SeededOrg> {
  const db = t.services.controlDb;
  const created = (await t.call(owner, 'POST', '/v1/organizations', { name })).json.data;
  setOrganizationPlan(db, created.id, 'business');
  const org: SeededOrg = { id: created.id, slug: created.slug, websites: [], keyIds: [] };
  for (const domain of domains) {
    const website = createWebsite(db, { organizationId: org.id, domain, name: domain, verifiedMethod: 'dns_txt' });
    db.prepare('INSERT INTO website_aliases (website_id, domain, verified) VALUES (?, ?, 1)').run(
      website.id,
      `www.${domain}`,
    );
    const original = createConnector(
      db,
      readMasterKey(t.services.layout),
      { websiteId: website.id, connectorType: 'test', sourceTypes: ['page'] },
      t.clock.now(),
    );
    // Rotated once, so the connector has a retired secret hash the erase must remove too.
    const connector = rotateConnector(db, readMasterKey(t.services.layout), original.id, t.clock.now());
    org.websites.push({ id: website.id, domain, connectorId: connector.id, token: connector.token });
    const items = [1, 2, 3].map((n) => {
      const base = {
        type: 'page',
        id: `p${n}`,
        url: `https://${domain}/page-${n}`,
        title: `${domain} page ${n}`,
        text: `The ${domain} page ${n} says the kettle K${n} is copper.`,
      };
      return { ...base, checksum: computeItemChecksum(base as never) };
    });
    const res = await injectSigned(t.app, '/v1/ingest/batch', {
      token: connector.token,
      websiteId: website.id,
      body: { website_id: website.id, items },
      nowMs: t.clock.now(),
    });
    expect(res.status, res.body).toBe(200);
    db.prepare('INSERT INTO analytics_events (website_id, metric, period_start, value) VALUES (?, ?, ?, ?)').run(
      website.id,
      'node.reads',
      '2026-03-02T10:00:00Z',
      3,
    );
    // A daemon's lease on the website's graph (not yet taken by the daemon itself: docs/scaling.md).
    db.prepare(
      'INSERT INTO website_leases (website_id, owner, token, acquired_at, expires_at) VALUES (?, ?, 2, ?, ?)',
    ).run(website.id, 'host:1:01JHKZZZZZZZZZZZZZZZZZZZZZ', t.clock.now(), t.clock.now() + 30_000);
  }
  await t.runJobs();
  for (const role of ['viewer', 'editor'] as const)
    org.keyIds.push((await t.call(owner, 'POST', `/v1/organizations/${org.id}/api-keys`, { role })).json.data.id);
  db.prepare('INSERT INTO rate_limits (bucket, window_start, count) VALUES (?, ?, 1)').run(
    `api:${org.keyIds[0]}`,
    t.clock.now(),
  );
  db.prepare(
    'INSERT INTO usage_counters (organization_id, metric, period, value) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING',
  ).run(org.id, 'items_ingested', '2026-03', 3);
  await t.call(owner, 'POST', `/v1/organizations/${org.id}/members`, {
    email: `invitee-${org.slug}@corp.test`,
    role: 'viewer',
  });
  await t.call(owner, 'POST', `/v1/organizations/${org.id}/transfer`, { email: `buyer-${org.slug}@corp.test` });
  await t.call(owner, 'POST', `/v1/organizations/${org.id}/transfer/cancel`);
  return org;
}

/** Every row of every control.sqlite table that holds one of the needles, as `table: row`. */
function controlRowsHolding(needles: string[]): string[] {
  const db = t.services.controlDb;
  const tables = controlTableNames(db);
  const hits: string[] = [];
  for (const table of tables) {
    for (const row of db.prepare(`SELECT * FROM "${table}"`).all() as Array<Record<string, unknown>>) {
      const text = JSON.stringify(row).toLowerCase();
      if (needles.some((n) => text.includes(n.toLowerCase())))
        hits.push(`${table}: ${JSON.stringify(row).slice(0, 200)}`);
    }
  }
  return hits;
}

/** Every file under `dir` whose path or bytes hold a needle (relative paths). */
function filesHolding(dir: string, needles: string[]): string[] {
  const hits: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else {
        const bytes = readFileSync(path);
        if (needles.some((n) => path.includes(n) || bytes.includes(n))) hits.push(relative(dir, path));
      }
    }
  };
  walk(dir);
  return hits;
}

/** Every object key of the S3 run prefix whose key or body holds a needle. */
async function bucketObjectsHolding(
  target: PublishTarget,
  needles: string[],
): Promise<{ keys: string[]; hits: string[] }> {
  const keys = await target.list('');
  const hits: string[] = [];
  for (const key of keys) {
    const body = (await target.get(key)) ?? Buffer.alloc(0);
    if (needles.some((n) => key.includes(n) || body.includes(n))) hits.push(key);
  }
  return { keys, hits };
}

const needlesOf = (org: SeededOrg) => [
  org.id,
  org.slug,
  ...org.keyIds,
  ...org.websites.flatMap((w) => [w.id, w.domain, w.connectorId, siteHashOf(w.id)]),
];

describe('POST /v1/organizations/:id/erase', () => {
  it('regression guard: every control.sqlite table is either erased by ERASE_STATEMENTS or listed as holding no organization data (a new table must choose)', () => {
    const tables = controlTableNames(t.services.controlDb);
    const classified = [...new Set([...ERASE_STATEMENTS.map(([table]) => table), ...KEPT_TABLES])].sort();
    expect(tables).toEqual(classified);
  });

  it('the job removes every graph, every published version and content-addressed object on every target (S3 bucket and local folder), connectors, keys, memberships, transfers, invitations and audit rows; users stay; the organization then reads 404', async () => {
    const doomed = await seedOrganization('Doomed Ltd', ['doomed-one.test', 'doomed-two.test']);
    const keeper = await seedOrganization('Keeper Ltd', ['keeper.test']);
    const [first, second] = doomed.websites;
    // One site published by the daemon (the S3 bucket, twice: two versions), the other to the local folder.
    for (let i = 0; i < 2; i++)
      expect(outcome(await t.call(owner, 'POST', `/v1/websites/${first!.id}/publish`, { force: true }))).toBe('200');
    expect(outcome(await t.call(owner, 'POST', `/v1/websites/${keeper.websites[0]!.id}/publish`))).toBe('200');
    const fs = await createTargetFromSettings(t.services.config.settings, 'fs');
    const s3Target = await createTargetFromSettings(t.services.config.settings, 's3');
    try {
      await runPublish({
        settings: t.services.config.settings,
        controlDb: t.services.controlDb,
        target: fs,
        source: { kind: 'website', websiteId: second!.id },
        now: t.clock.now,
      });
      const needles = needlesOf(doomed);
      expect(controlRowsHolding(needles).filter((row) => row.startsWith('retired_connector_secrets:'))).toHaveLength(2);
      // The scans find the organization before the erase, so finding nothing after it means something.
      expect(controlRowsHolding(needles).length).toBeGreaterThan(20);
      expect(
        filesHolding(
          t.services.layout.graphsDir,
          doomed.websites.map((w) => w.id),
        ).filter((f) => f.endsWith('.sqlite')),
      ).toHaveLength(4); // each website's graph and inbox
      expect(filesHolding(t.services.layout.nodesDir, needles).length).toBeGreaterThan(0);
      expect((await bucketObjectsHolding(s3Target, needles)).hits.length).toBeGreaterThan(10);
      expect((await s3Target.list(`${siteHashOf(first!.id)}/cas/`)).length).toBeGreaterThan(0);

      const res = await t.call(owner, 'POST', `/v1/organizations/${doomed.id}/erase`, { confirm: 'Doomed Ltd' });
      expect(res.status).toBe(202);
      const jobId = res.json.data.job_id;
      expect(t.services.jobs.get(jobId)).toMatchObject({ kind: 'org.erase', state: 'queued' });
      expect(
        outcome(await t.call(owner, 'POST', `/v1/organizations/${doomed.id}/erase`, { confirm: doomed.slug })),
      ).toBe('409 privacy.erasure_in_progress');
      await t.runJobs();
      expect(t.services.jobs.get(jobId)).toMatchObject({ state: 'succeeded', lastError: null });

      expect(outcome(await t.call(owner, 'GET', `/v1/organizations/${doomed.id}`))).toBe('404 organization.not_found');
      expect(
        outcome(await t.call(owner, 'POST', `/v1/organizations/${doomed.id}/erase`, { confirm: doomed.slug })),
      ).toBe('404 organization.not_found');
      expect(controlRowsHolding(needles)).toEqual([]);
      // Bytes, not only rows: control.sqlite and its WAL, the graphs, the local node folder; mail/ holds the mails already sent.
      expect(filesHolding(t.services.layout.root, needles).filter((f) => !f.startsWith('mail/'))).toEqual([]);
      expect((await bucketObjectsHolding(s3Target, needles)).hits).toEqual([]);
      // The erase job's own row names the erasure only.
      expect(JSON.stringify(t.services.jobs.get(jobId))).not.toContain(doomed.id);

      // Users and the other organization stay whole.
      expect(t.services.controlDb.prepare('SELECT COUNT(*) FROM users WHERE id = ?').pluck().get(owner)).toBe(1);
      expect(
        (await t.call(owner, 'GET', '/v1/organizations')).json.data.items.map((o: { id: string }) => o.id),
      ).toEqual([keeper.id]);
      expect(controlRowsHolding([keeper.id, keeper.websites[0]!.id]).length).toBeGreaterThan(20);
      expect((await bucketObjectsHolding(s3Target, [keeper.websites[0]!.domain])).hits.length).toBeGreaterThan(0);
      expect(
        filesHolding(t.services.layout.graphsDir, [keeper.websites[0]!.id]).filter((f) => f.endsWith('.sqlite')),
      ).toHaveLength(2); // its graph and inbox
      const keeperAudit = await t.call(owner, 'GET', `/v1/organizations/${keeper.id}/audit`);
      expect(keeperAudit.json.data.items.length).toBeGreaterThan(3);
    } finally {
      await fs.close();
      await s3Target.close();
    }
  }, 120_000);

  it('a confirmation that is neither the slug nor the name is 422 validation.failed on confirm, and nothing is queued', async () => {
    const org = (await t.call(owner, 'POST', '/v1/organizations', { name: 'Acme Bikes' })).json.data;
    for (const confirm of ['acme', 'Acme bikes', 'acme-bikes-2', '']) {
      const res = await t.call(owner, 'POST', `/v1/organizations/${org.id}/erase`, { confirm });
      expect(outcome(res), confirm).toBe('422 validation.failed');
      expect(res.json.error.details.fields[0].path).toBe('confirm');
    }
    expect(outcome(await t.call(owner, 'POST', `/v1/organizations/${org.id}/erase`, {}))).toBe('422 validation.failed');
    expect(t.services.jobs.list({ kind: 'org.erase' })).toEqual([]);
    expect(outcome(await t.call(owner, 'POST', `/v1/organizations/${org.id}/erase`, { confirm: ' acme-bikes ' }))).toBe(
      '202',
    );
  });

  it('during a pending transfer it is 403 privacy.erasure_forbidden; after the cancel it is accepted', async () => {
    const org = (await t.call(owner, 'POST', '/v1/organizations', { name: 'Acme' })).json.data;
    await t.call(owner, 'POST', `/v1/organizations/${org.id}/transfer`, { email: 'buyer@corp.test' });
    const res = await t.call(owner, 'POST', `/v1/organizations/${org.id}/erase`, { confirm: 'acme' });
    expect(outcome(res)).toBe('403 privacy.erasure_forbidden');
    expect(res.json.error.message).toMatch(/transfer\/cancel/);
    await t.call(owner, 'POST', `/v1/organizations/${org.id}/transfer/cancel`);
    expect(outcome(await t.call(owner, 'POST', `/v1/organizations/${org.id}/erase`, { confirm: 'acme' }))).toBe('202');
    expect(
      outcome(await t.call(owner, 'POST', `/v1/organizations/${org.id}/transfer`, { email: 'late@corp.test' })),
    ).toBe('409 privacy.erasure_in_progress');
  });

  it('needs organization_owner and a user session: an admin is 403 auth.forbidden, an admin API key 403 auth.forbidden', async () => {
    const org = (await t.call(owner, 'POST', '/v1/organizations', { name: 'Acme' })).json.data;
    const admin = t.user('admin@corp.test');
    await t.call(owner, 'POST', `/v1/organizations/${org.id}/members`, {
      email: 'admin@corp.test',
      role: 'organization_admin',
    });
    expect(outcome(await t.call(admin, 'POST', `/v1/organizations/${org.id}/erase`, { confirm: 'acme' }))).toBe(
      '403 auth.forbidden',
    );
    const key = createApiKey(t.services.controlDb, { organizationId: org.id, role: 'organization_admin' }).key;
    expect(outcome(await t.call(key, 'POST', `/v1/organizations/${org.id}/erase`, { confirm: 'acme' }))).toBe(
      '403 auth.forbidden',
    );
  });

  it("a publish holding a website's lock makes the job fail and retry; the retry finishes the erase (each step may run again)", async () => {
    const { acquirePublishLock } = await import('../../../src/output/publish/lock.js');
    const org = (await t.call(owner, 'POST', '/v1/organizations', { name: 'Busy' })).json.data;
    const website = createWebsite(t.services.controlDb, {
      organizationId: org.id,
      domain: 'busy-site.test',
      name: 'busy',
    });
    const lock = acquirePublishLock(t.services.controlDb, website.id, { now: t.clock.now });
    const { job_id: jobId } = (await t.call(owner, 'POST', `/v1/organizations/${org.id}/erase`, { confirm: 'busy' }))
      .json.data;
    await t.runJobs();
    expect(t.services.jobs.get(jobId)).toMatchObject({
      state: 'queued',
      attempts: 1,
      lastError: expect.stringMatching(/Another publish/),
    });
    expect(outcome(await t.call(owner, 'POST', `/v1/organizations/${org.id}/erase`, { confirm: 'busy' }))).toBe(
      '409 privacy.erasure_in_progress',
    );
    lock.release();
    t.clock.advance(60_000);
    await t.runJobs();
    expect(t.services.jobs.get(jobId)).toMatchObject({ state: 'succeeded', attempts: 2 });
    expect(controlRowsHolding([org.id, website.id])).toEqual([]);
  });

  it('a website added after the erase request is erased too (the job lists websites until none is left)', async () => {
    const org = (await t.call(owner, 'POST', '/v1/organizations', { name: 'Racing' })).json.data;
    setOrganizationPlan(t.services.controlDb, org.id, 'business');
    createWebsite(t.services.controlDb, { organizationId: org.id, domain: 'racing-one.test', name: 'one' });
    const { job_id: jobId } = (await t.call(owner, 'POST', `/v1/organizations/${org.id}/erase`, { confirm: 'racing' }))
      .json.data;
    // A second website arrives after the request, before the job runs.
    createWebsite(t.services.controlDb, { organizationId: org.id, domain: 'racing-two.test', name: 'two' });
    await t.runJobs();
    expect(t.services.jobs.get(jobId)).toMatchObject({ state: 'succeeded' });
    expect(controlRowsHolding([org.id, 'racing-one.test', 'racing-two.test'])).toEqual([]);
  });
});
