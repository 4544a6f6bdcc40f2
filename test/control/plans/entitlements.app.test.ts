import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAppError } from '../../../src/platform/errors/app-error.js';
import { assertCapability, hasCapability } from '../../../src/control/plans/entitlements.js';
import { PLAN_TABLE } from '../../../src/control/plans/plan-table.js';
import { createApiKey } from '../../../src/control/records/api-keys.js';
import { createWebsite } from '../../../src/control/records/websites.js';
import { PROJECT_ROOT } from '../../helpers/paths.js';
import { buildOrgApp, outcome, type OrgTestApp } from '../organizations/support.js';

/** The AppError code and details a call throws. */
function thrown(run: () => unknown): { code: string; details: unknown } {
  try {
    run();
  } catch (error) {
    if (isAppError(error)) return { code: error.code, details: error.details };
    throw error;
  }
  throw new Error('nothing was thrown');
}

describe('the plan table', () => {
  it('is the table of docs/contract.md#plans, row for row', () => {
    const contract = readFileSync(join(PROJECT_ROOT, 'docs', 'contract.md'), 'utf8');
    const section = contract.slice(contract.indexOf('## Plans'), contract.indexOf('## Rate limits'));
    const rows = section.split('\n').filter((line) => /^\| (free|pro|business) \|/.test(line));
    const number = (cell: string) => Number(cell.replace(/,/g, ''));
    const parsed = rows.map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    );
    expect(
      parsed.map(([plan, websites, items, publishes, members]) => ({
        plan,
        limits: {
          websites: number(websites!),
          items: number(items!),
          publishes_per_day: number(publishes!),
          members: number(members!),
        },
      })),
    ).toEqual((['free', 'pro', 'business'] as const).map((plan) => ({ plan, limits: PLAN_TABLE[plan].limits })));
    expect(PLAN_TABLE.free.capabilities).toEqual(['cap.core']);
    expect(PLAN_TABLE.pro.capabilities).toEqual(['cap.advanced', 'cap.core', 'cap.mcp', 'cap.webhooks']);
    expect(PLAN_TABLE.business.capabilities).toEqual([
      'cap.advanced',
      'cap.core',
      'cap.embeddings',
      'cap.mcp',
      'cap.webhooks',
    ]);
  });
});

describe('entitlements, usage and the quotas of organizations', () => {
  let t: OrgTestApp;
  let owner: string;
  let orgId: string;
  let foreignOrg: string;
  let admin: string;
  const setPlan = (plan: string, id = orgId) =>
    t.services.controlDb.prepare('UPDATE organizations SET plan = ? WHERE id = ?').run(plan, id);

  beforeAll(async () => {
    t = await buildOrgApp();
    owner = t.user('owner@corp.test');
    admin = t.user('root@ops.test', { platformRole: 'admin' });
    orgId = (await t.call(owner, 'POST', '/v1/organizations', { name: 'Corp' })).json.data.id;
    const stranger = t.user('stranger@else.test');
    foreignOrg = (await t.call(stranger, 'POST', '/v1/organizations', { name: 'Else' })).json.data.id;
    setPlan('free');
  }, 60_000);
  afterAll(async () => t?.close());

  it('GET .../entitlements answers the plan, its capabilities and every quota with its use', async () => {
    const res = await t.call(owner, 'GET', `/v1/organizations/${orgId}/entitlements`);
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({
      organization_id: orgId,
      plan: 'free',
      capabilities: ['cap.core'],
      limits: {
        websites: { limit: 1, used: 0 },
        items: { limit: 1000, used: 0 },
        publishes_per_day: { limit: 10, used: 0 },
        members: { limit: 3, used: 1 },
      },
    });
  });

  it('a viewer API key reads its own organization; another organization reads as 404 organization.not_found; a platform admin reads any', async () => {
    const key = createApiKey(t.services.controlDb, { organizationId: orgId, role: 'viewer' }, t.clock.now()).key;
    expect(outcome(await t.call(key, 'GET', `/v1/organizations/${orgId}/entitlements`))).toBe('200');
    expect(outcome(await t.call(key, 'GET', `/v1/organizations/${foreignOrg}/entitlements`))).toBe(
      '404 organization.not_found',
    );
    expect(outcome(await t.call(owner, 'GET', `/v1/organizations/${foreignOrg}/usage`))).toBe(
      '404 organization.not_found',
    );
    expect(outcome(await t.call(admin, 'GET', `/v1/organizations/${foreignOrg}/entitlements`))).toBe('200');
    expect(outcome(await t.call(admin, 'GET', `/v1/organizations/${foreignOrg}/usage`))).toBe('200');
  });

  it("websites: the free plan's first website is created, the second is 403 entitlement.limit_reached (details.limit 1, details.used 1)", () => {
    createWebsite(t.services.controlDb, { organizationId: orgId, domain: 'corp.test', name: 'Corp' }, t.clock.now());
    expect(
      thrown(() =>
        createWebsite(
          t.services.controlDb,
          { organizationId: orgId, domain: 'two.corp.test', name: 'Two' },
          t.clock.now(),
        ),
      ),
    ).toEqual({
      code: 'entitlement.limit_reached',
      details: { limit: 1, used: 1, quota: 'websites', plan: 'free' },
    });
    setPlan('pro');
    createWebsite(t.services.controlDb, { organizationId: orgId, domain: 'two.corp.test', name: 'Two' }, t.clock.now());
    setPlan('free');
  });

  it('members: the free plan seats 3 (a pending invitation holds a seat); the 4th is 403 entitlement.limit_reached; renewing an invitation takes no new seat', async () => {
    const members = `/v1/organizations/${orgId}/members`;
    t.user('dev@corp.test');
    expect(outcome(await t.call(owner, 'POST', members, { email: 'dev@corp.test', role: 'editor' }))).toBe('201');
    // invited
    expect(outcome(await t.call(owner, 'POST', members, { email: 'newcomer@corp.test', role: 'viewer' }))).toBe('202');
    expect(outcome(await t.call(owner, 'POST', members, { email: 'newcomer@corp.test', role: 'editor' }))).toBe('202');
    t.user('late@corp.test');
    const refused = await t.call(owner, 'POST', members, { email: 'late@corp.test', role: 'viewer' });
    expect(refused.status).toBe(403);
    expect(refused.json.error).toMatchObject({
      code: 'entitlement.limit_reached',
      details: { limit: 3, used: 3, quota: 'members' },
    });
    expect(outcome(await t.call(owner, 'POST', members, { email: 'another@corp.test', role: 'viewer' }))).toBe(
      '403 entitlement.limit_reached',
    );
  });

  it('capabilities: a missing one is 403 entitlement.capability_missing naming it and the plan', () => {
    expect(hasCapability(t.services.controlDb, orgId, 'cap.core')).toBe(true);
    expect(thrown(() => assertCapability(t.services.controlDb, orgId, 'cap.webhooks'))).toEqual({
      code: 'entitlement.capability_missing',
      details: { capability: 'cap.webhooks', plan: 'free' },
    });
    setPlan('pro');
    expect(() => assertCapability(t.services.controlDb, orgId, 'cap.webhooks')).not.toThrow();
    expect(thrown(() => assertCapability(t.services.controlDb, orgId, 'cap.embeddings')).code).toBe(
      'entitlement.capability_missing',
    );
    setPlan('free');
  });

  it('GET .../usage answers the five counters of the month; api_requests counts every management request made for the organization', async () => {
    const before = (await t.call(owner, 'GET', `/v1/organizations/${orgId}/usage`)).json.data;
    expect(before).toMatchObject({ organization_id: orgId, period: '2026-03' });
    expect(Object.keys(before.usage).sort()).toEqual([
      'api_requests',
      'embedded_chunks',
      'items_ingested',
      'node_reads',
      'published_versions',
    ]);
    for (let i = 0; i < 3; i++) await t.call(owner, 'GET', `/v1/organizations/${orgId}/entitlements`);
    const after = (await t.call(owner, 'GET', `/v1/organizations/${orgId}/usage`)).json.data;
    // The three reads and the first usage request itself (counted once it answered).
    expect(after.usage.api_requests - before.usage.api_requests).toBe(4);
    const stored = t.services.controlDb
      .prepare("SELECT period, value FROM usage_counters WHERE organization_id = ? AND metric = 'api_requests'")
      .all(orgId);
    expect(stored).toEqual([{ period: '2026-03', value: after.usage.api_requests }]);
  });

  it('bug "a count flushed after an erasure wrote the organization\'s id back": a counter of an organization that is gone writes nothing', async () => {
    const gone = (await t.call(owner, 'POST', '/v1/organizations', { name: 'Short lived' })).json.data.id;
    // its own api_request is counted after the delete
    expect(outcome(await t.call(owner, 'DELETE', `/v1/organizations/${gone}`))).toBe('204');
    t.services.usage.flush();
    t.services.usage.count(gone, 'api_requests');
    t.services.usage.flush();
    expect(
      t.services.controlDb.prepare('SELECT COUNT(*) AS n FROM usage_counters WHERE organization_id = ?').get(gone),
    ).toEqual({ n: 0 });
  });

  it('GET .../usage?period= reads another month; a bad period is 422 validation.failed', async () => {
    t.services.controlDb
      .prepare(
        "INSERT INTO usage_counters (organization_id, metric, period, value) VALUES (?, 'node_reads', '2026-01', 42)",
      )
      .run(orgId);
    expect((await t.call(owner, 'GET', `/v1/organizations/${orgId}/usage?period=2026-01`)).json.data).toEqual({
      organization_id: orgId,
      period: '2026-01',
      usage: { items_ingested: 0, published_versions: 0, node_reads: 42, api_requests: 0, embedded_chunks: 0 },
    });
    expect(outcome(await t.call(owner, 'GET', `/v1/organizations/${orgId}/usage?period=2026-13`))).toBe(
      '422 validation.failed',
    );
    expect(outcome(await t.call(owner, 'GET', `/v1/organizations/${orgId}/usage?month=2026-01`))).toBe(
      '422 validation.failed',
    );
  });
});
