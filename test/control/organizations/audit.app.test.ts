import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { computeItemChecksum } from '../../../src/platform/contract/checksum.js';
import { createConnector } from '../../../src/control/connectors/connectors.js';
import { readMasterKey } from '../../../src/platform/storage/data-dir.js';
import { appendAudit, listAudit } from '../../../src/control/records/audit.js';
import { createApiKey } from '../../../src/control/records/api-keys.js';
import { createWebsite } from '../../../src/control/records/websites.js';
import { injectSigned } from '../../helpers/app.js';
import { runNodectlInProcess } from '../../helpers/cli-in-process.js';
import { buildOrgApp, outcome, type OrgTestApp } from './support.js';

let t: OrgTestApp;
let owner: string;
let orgId: string;
const audit = (as: string, query = '') => t.call(as, 'GET', `/v1/organizations/${orgId}/audit${query}`);
const actions = async () => (await audit(owner, '?limit=100')).json.data.items.map((r: { action: string }) => r.action);

beforeEach(async () => {
  t = await buildOrgApp();
  owner = t.user('owner@corp.test');
  orgId = (await t.call(owner, 'POST', '/v1/organizations', { name: 'Acme' })).json.data.id;
});
afterEach(async () => t.close());

describe('GET /v1/organizations/:id/audit', () => {
  it('records who did what: member changes, key creation and revocation, transfers and the erase request, newest first, with the request id', async () => {
    const dev = t.user('dev@corp.test');
    const added = await t.call(owner, 'POST', `/v1/organizations/${orgId}/members`, {
      email: 'dev@corp.test',
      role: 'viewer',
    });
    await t.call(owner, 'PATCH', `/v1/organizations/${orgId}/members/${dev}`, { role: 'editor' });
    await t.call(owner, 'DELETE', `/v1/organizations/${orgId}/members/${dev}`);
    const key = (await t.call(owner, 'POST', `/v1/organizations/${orgId}/api-keys`, { name: 'ci', role: 'editor' }))
      .json.data;
    await t.call(owner, 'DELETE', `/v1/organizations/${orgId}/api-keys/${key.id}`);
    await t.call(owner, 'POST', `/v1/organizations/${orgId}/transfer`, { email: 'buyer@corp.test' });
    await t.call(owner, 'POST', `/v1/organizations/${orgId}/transfer/cancel`);
    await t.call(owner, 'POST', `/v1/organizations/${orgId}/erase`, { confirm: 'acme' });
    expect(await actions()).toEqual([
      'organization.erase_requested',
      'transfer.cancelled',
      'transfer.requested',
      'api_key.revoked',
      'api_key.created',
      'member.removed',
      'member.role_changed',
      'member.added',
      'organization.created',
    ]);
    const items = (await audit(owner)).json.data.items;
    const memberAdded = items.find((r: { action: string }) => r.action === 'member.added');
    expect(memberAdded).toMatchObject({
      id: expect.stringMatching(/^aud_/),
      actor: { kind: 'user', id: owner },
      target: dev,
      requestId: added.headers['x-request-id'],
      details: { email: 'dev@corp.test', role: 'viewer' },
    });
    expect(new Date(memberAdded.createdAt).getTime()).toBe(t.clock.now());
    // Details carry no secret: the key's prefix, never the key.
    const created = items.find((r: { action: string }) => r.action === 'api_key.created');
    expect(created.details).toEqual({ name: 'ci', role: 'editor', prefix: key.prefix });
    expect(JSON.stringify(items)).not.toContain(key.key);
  });

  it('records publish and takedown of a website with the API key that did them', async () => {
    const db = t.services.controlDb;
    const website = createWebsite(db, {
      organizationId: orgId,
      domain: 'audit-site.test',
      name: 'Audit',
      verifiedMethod: 'dns_txt',
    });
    const connector = createConnector(
      db,
      readMasterKey(t.services.layout),
      { websiteId: website.id, connectorType: 'test', sourceTypes: ['page'] },
      t.clock.now(),
    );
    const base = {
      type: 'page',
      id: 'about',
      url: 'https://audit-site.test/about',
      title: 'About',
      text: 'Audit Site sells copper kettles.',
    };
    await injectSigned(t.app, '/v1/ingest/batch', {
      token: connector.token,
      websiteId: website.id,
      body: { website_id: website.id, items: [{ ...base, checksum: computeItemChecksum(base as never) }] },
      nowMs: t.clock.now(),
    });
    await t.runJobs();
    const key = createApiKey(db, { organizationId: orgId, role: 'organization_admin' });
    const published = await t.call(key.key, 'POST', `/v1/websites/${website.id}/publish`);
    expect(outcome(published)).toBe('200');
    expect(outcome(await t.call(key.key, 'DELETE', `/v1/websites/${website.id}/node`))).toBe('200');
    const [takedown, publish] = (await audit(owner)).json.data.items;
    expect(takedown).toMatchObject({
      action: 'node.taken_down',
      actor: { kind: 'api_key', id: key.id },
      target: website.id,
    });
    expect(publish).toMatchObject({
      action: 'node.published',
      actor: { kind: 'api_key', id: key.id },
      target: website.id,
      details: { version: published.json.data.versionUlid, already_live: false, dry_run: false },
    });
  }, 60_000);

  it('is cursor paginated, newest first, without repeats or gaps', async () => {
    for (let i = 0; i < 7; i++)
      appendAudit(
        t.services.controlDb,
        { organizationId: orgId, actor: { kind: 'system' }, action: `test.step_${i}` },
        t.clock.now(),
      );
    const seen: string[] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const page: { items: Array<{ action: string }>; next_cursor: string | null } = (
        await audit(owner, `?limit=3${cursor ? `&cursor=${cursor}` : ''}`)
      ).json.data;
      expect(page.items.length).toBeLessThanOrEqual(3);
      seen.push(...page.items.map((r) => r.action));
      cursor = page.next_cursor;
    }
    expect(seen).toEqual([6, 5, 4, 3, 2, 1, 0].map((i) => `test.step_${i}`).concat('organization.created'));
  });

  it('needs organization_admin: a viewer or editor is 403 auth.forbidden, a stranger 404 organization.not_found; an admin API key may read it', async () => {
    for (const role of ['viewer', 'editor']) {
      const user = t.user(`${role}@corp.test`);
      await t.call(owner, 'POST', `/v1/organizations/${orgId}/members`, { email: `${role}@corp.test`, role });
      expect(outcome(await audit(user))).toBe('403 auth.forbidden');
    }
    expect(outcome(await audit(t.user('stranger@corp.test')))).toBe('404 organization.not_found');
    const key = createApiKey(t.services.controlDb, { organizationId: orgId, role: 'organization_admin' }).key;
    expect(outcome(await audit(key))).toBe('200');
  });
});

describe('the audit table is append-only', () => {
  it('refuses to update a row, and to delete one while its organization exists', () => {
    const db = t.services.controlDb;
    expect(() => db.prepare(`UPDATE audit_log SET action = 'forged' WHERE organization_id = ?`).run(orgId)).toThrow(
      /append-only/,
    );
    expect(() => db.prepare('DELETE FROM audit_log WHERE organization_id = ?').run(orgId)).toThrow(/append-only/);
    expect(listAudit(db, orgId, { limit: 10 })).toHaveLength(1);
  });
});

/** The CLI on the app's control store: the data directory's, or the conformance run's PostgreSQL database. */
const cliEnv = (): Record<string, string> => {
  const store = t.services.config.settings.controlStore;
  return store === undefined ? {} : { NODECTL_CONTROL_STORE: store };
};

describe('nodectl admin org set-plan', () => {
  it('sets the plan, says what it was, and records it in the audit log as the operator', async () => {
    t.services.controlDb.pragma('wal_checkpoint(TRUNCATE)');
    const run = await runNodectlInProcess(
      ['--json', 'admin', 'org', 'set-plan', '--org', orgId, '--plan', 'business'],
      {
        dataDir: t.dataDir,
        env: cliEnv(),
      },
    );
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.json()).toMatchObject({ id: orgId, plan: 'business' });
    expect((await t.call(owner, 'GET', `/v1/organizations/${orgId}`)).json.data.plan).toBe('business');
    expect((await audit(owner)).json.data.items[0]).toMatchObject({
      action: 'organization.plan_changed',
      actor: { kind: 'operator', id: null },
      details: { plan_before: 'free', plan: 'business' },
    });
    const human = await runNodectlInProcess(['admin', 'org', 'set-plan', '--org', orgId, '--plan', 'pro'], {
      dataDir: t.dataDir,
      env: cliEnv(),
    });
    expect(human.stdout).toContain('plan business -> pro');
  }, 60_000);

  it('an unknown organization or plan fails with a message that says what to fix', async () => {
    const unknown = await runNodectlInProcess(['admin', 'org', 'set-plan', '--org', 'org_nope', '--plan', 'pro'], {
      dataDir: t.dataDir,
      env: cliEnv(),
    });
    expect(unknown.exitCode).not.toBe(0);
    expect(unknown.stderr).toContain('nodectl admin org list');
    const badPlan = await runNodectlInProcess(['admin', 'org', 'set-plan', '--org', orgId, '--plan', 'gold'], {
      dataDir: t.dataDir,
      env: cliEnv(),
    });
    expect(badPlan.exitCode).not.toBe(0);
    expect(badPlan.stderr).toMatch(/free, pro, business/);
  }, 60_000);
});
