import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiKey, hashApiKey } from '../../../src/control/records/api-keys.js';
import { ROLES } from '../../../src/control/records/record-types.js';
import { assertMayGrant, assertMayManage } from '../../../src/control/organizations/role-policy.js';
import { buildOrgApp, outcome, type OrgTestApp } from './support.js';

let t: OrgTestApp;
let owner: string;
let orgId: string;
const keys = (path = '') => `/v1/organizations/${orgId}/api-keys${path}`;

beforeEach(async () => {
  t = await buildOrgApp();
  owner = t.user('owner@corp.test');
  orgId = (await t.call(owner, 'POST', '/v1/organizations', { name: 'Acme' })).json.data.id;
});
afterEach(async () => t.close());

describe('POST /v1/organizations/:id/api-keys', () => {
  it('creates a key shown once (nk_live_ + 32 base62), stored only as a hash, and the key works at once', async () => {
    const res = await t.call(owner, 'POST', keys(), { name: 'ci deploy', role: 'viewer' });
    expect(res.status).toBe(201);
    const created = res.json.data;
    expect(created).toMatchObject({ name: 'ci deploy', role: 'viewer', createdBy: owner, revokedAt: null });
    expect(created.key).toMatch(/^nk_live_[0-9A-Za-z]{32}$/);
    expect(created.prefix).toBe(created.key.slice(0, 12));
    const stored = t.services.controlDb.prepare('SELECT * FROM api_keys WHERE id = ?').get(created.id) as Record<
      string,
      unknown
    >;
    expect(stored.secret_hash).toBe(hashApiKey(created.key));
    expect(JSON.stringify(stored)).not.toContain(created.key);
    expect((await t.call(created.key, 'GET', `/v1/organizations/${orgId}`)).json.data.role).toBe('viewer');
  });

  it('defaults to an editor key named "api key"; an owner role, an unknown field or a long name is 422 validation.failed', async () => {
    expect((await t.call(owner, 'POST', keys())).json.data).toMatchObject({ name: 'api key', role: 'editor' });
    expect((await t.call(owner, 'POST', keys(), {})).json.data).toMatchObject({ name: 'api key', role: 'editor' });
    expect((await t.call(owner, 'POST', keys(), { name: ' CI ' })).json.data).toMatchObject({
      name: 'CI',
      role: 'editor',
    });
    for (const body of [{ role: 'organization_owner' }, { role: 'editor', secret: 'x' }, { name: 'n'.repeat(201) }]) {
      expect(outcome(await t.call(owner, 'POST', keys(), body))).toBe('422 validation.failed');
    }
  });

  it('needs organization_admin (an editor is 403 auth.forbidden) and a user session: an API key, even an admin key, is 403', async () => {
    const editor = t.user('editor@corp.test');
    await t.call(owner, 'POST', `/v1/organizations/${orgId}/members`, { email: 'editor@corp.test', role: 'editor' });
    expect(outcome(await t.call(editor, 'POST', keys(), { role: 'viewer' }))).toBe('403 auth.forbidden');
    const adminKey = createApiKey(t.services.controlDb, { organizationId: orgId, role: 'organization_admin' }).key;
    for (const [method, path] of [
      ['POST', keys()],
      ['GET', keys()],
      ['DELETE', keys('/key_x')],
    ] as const) {
      const res = await t.call(adminKey, method, path, method === 'POST' ? { role: 'viewer' } : undefined);
      expect(outcome(res), `${method} ${path}`).toBe('403 auth.forbidden');
      expect(res.json.error.message).toMatch(/sign in as a user/);
    }
  });
});

describe('the role rules of keys and members (role-policy.ts)', () => {
  it('nobody grants a role above their own; platform admins grant any; nobody manages a member above their own role', () => {
    for (const caller of ROLES) {
      for (const role of ROLES) {
        const allowed = ROLES.indexOf(role) <= ROLES.indexOf(caller);
        if (allowed) expect(() => assertMayGrant(caller, role)).not.toThrow();
        else expect(() => assertMayGrant(caller, role)).toThrow(/above your own role/);
        if (allowed) expect(() => assertMayManage(caller, role)).not.toThrow();
        else expect(() => assertMayManage(caller, role)).toThrow(/above your own role/);
      }
    }
    for (const platform of ['admin', 'super_admin'] as const)
      expect(() => assertMayGrant(platform, 'organization_owner')).not.toThrow();
  });
});

describe('GET /v1/organizations/:id/api-keys', () => {
  it('lists keys by id without the secret or its hash, revoked ones with revokedAt, paginated', async () => {
    const created = [];
    for (const name of ['one', 'two', 'three']) created.push((await t.call(owner, 'POST', keys(), { name })).json.data);
    await t.call(owner, 'DELETE', keys(`/${created[1].id}`));
    const page1 = await t.call(owner, 'GET', `${keys()}?limit=2`);
    const page2 = await t.call(owner, 'GET', `${keys()}?limit=2&cursor=${page1.json.data.next_cursor}`);
    const listed = [...page1.json.data.items, ...page2.json.data.items];
    expect(listed.map((k: { id: string }) => k.id)).toEqual(created.map((k) => k.id).sort());
    expect(page2.json.data.next_cursor).toBeNull();
    const body = page1.body + page2.body;
    for (const key of created) expect(body).not.toContain(key.key);
    expect(body).not.toMatch(/secret|hash/i);
    expect(listed.find((k: { id: string }) => k.id === created[1].id).revokedAt).toEqual(expect.any(String));
  });
});

describe('DELETE /v1/organizations/:id/api-keys/:keyId', () => {
  it('regression: an API key could never be revoked; now the revoked key is 401 auth.unauthenticated on its next request', async () => {
    const { id, key } = (await t.call(owner, 'POST', keys(), { role: 'editor' })).json.data;
    expect((await t.call(key, 'GET', `/v1/organizations/${orgId}`)).status).toBe(200);
    expect(outcome(await t.call(owner, 'DELETE', keys(`/${id}`)))).toBe('204');
    expect(outcome(await t.call(key, 'GET', `/v1/organizations/${orgId}`))).toBe('401 auth.unauthenticated');
    expect(outcome(await t.call(owner, 'DELETE', keys(`/${id}`)))).toBe('204');
    const revocations = (await t.call(owner, 'GET', `/v1/organizations/${orgId}/audit`)).json.data.items.filter(
      (r: { action: string }) => r.action === 'api_key.revoked',
    );
    expect(revocations).toEqual([expect.objectContaining({ target: id, actor: { kind: 'user', id: owner } })]);
  });

  it("an unknown key, or another organization's key under this organization's path, is 404 organization.api_key_not_found and stays live", async () => {
    const stranger = t.user('stranger@corp.test');
    const otherOrg = (await t.call(stranger, 'POST', '/v1/organizations', { name: 'Other' })).json.data.id;
    const other = createApiKey(t.services.controlDb, { organizationId: otherOrg, role: 'editor' });
    expect(outcome(await t.call(owner, 'DELETE', keys(`/${other.id}`)))).toBe('404 organization.api_key_not_found');
    expect(outcome(await t.call(owner, 'DELETE', keys('/key_nope')))).toBe('404 organization.api_key_not_found');
    expect((await t.call(other.key, 'GET', `/v1/organizations/${otherOrg}`)).status).toBe(200);
    expect(outcome(await t.call(owner, 'DELETE', `/v1/organizations/${otherOrg}/api-keys/${other.id}`))).toBe(
      '403 auth.tenant_mismatch',
    );
  });
});
