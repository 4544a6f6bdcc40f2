import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiKey } from '../../../src/control/records/api-keys.js';
import { createWebsite } from '../../../src/control/records/websites.js';
import { buildOrgApp, outcome, type OrgTestApp } from './support.js';

let t: OrgTestApp;
let owner: string;
beforeEach(async () => {
  t = await buildOrgApp();
  owner = t.user('owner@corp.test');
});
afterEach(async () => t.close());

async function createOrg(as: string, name = 'Acme Bikes'): Promise<{ id: string; slug: string }> {
  const res = await t.call(as, 'POST', '/v1/organizations', { name });
  expect(outcome(res)).toBe('201');
  return res.json.data;
}

describe('POST /v1/organizations', () => {
  it('any signed-in user creates one and becomes its organization_owner; the slug comes from the name and stays unique', async () => {
    const first = await t.call(owner, 'POST', '/v1/organizations', { name: '  Acme Bikes & Co. ' });
    expect(first.status).toBe(201);
    expect(first.json.data).toMatchObject({
      name: 'Acme Bikes & Co.',
      slug: 'acme-bikes-co',
      plan: 'free',
      role: 'organization_owner',
    });
    const other = t.user('other@corp.test');
    const second = await t.call(other, 'POST', '/v1/organizations', { name: 'Acme Bikes Co' });
    expect(second.json.data.slug).toBe('acme-bikes-co-2');
    const members = await t.call(owner, 'GET', `/v1/organizations/${first.json.data.id}/members`);
    expect(members.json.data.items).toEqual([
      expect.objectContaining({ userId: owner, email: 'owner@corp.test', role: 'organization_owner' }),
    ]);
  });

  it('a missing or empty name is 422 validation.failed naming the field; an unknown field too', async () => {
    for (const body of [{}, { name: '   ' }, { name: 'x'.repeat(201) }, { name: 'Acme', plan: 'business' }]) {
      const res = await t.call(owner, 'POST', '/v1/organizations', body);
      expect(outcome(res)).toBe('422 validation.failed');
      expect(res.json.error.details.fields.length).toBeGreaterThan(0);
    }
  });

  it('an API key cannot create an organization (403 auth.forbidden: a user session is needed); no credential is 401', async () => {
    const org = await createOrg(owner);
    const key = createApiKey(t.services.controlDb, { organizationId: org.id, role: 'organization_admin' }).key;
    const res = await t.call(key, 'POST', '/v1/organizations', { name: 'Via key' });
    expect(outcome(res)).toBe('403 auth.forbidden');
    expect(res.json.error.message).toMatch(/sign in as a user/);
    expect(outcome(await t.call(undefined, 'POST', '/v1/organizations', { name: 'Anon' }))).toBe(
      '401 auth.unauthenticated',
    );
  });
});

describe('GET /v1/organizations', () => {
  it("lists the caller's memberships with the role in each, paginated by ?limit and ?cursor", async () => {
    const ids = [];
    for (const name of ['One', 'Two', 'Three']) ids.push((await createOrg(owner, name)).id);
    const stranger = t.user('stranger@corp.test');
    await createOrg(stranger, 'Not yours');
    const page1 = await t.call(owner, 'GET', '/v1/organizations?limit=2');
    expect(page1.json.data.items.map((o: { id: string }) => o.id)).toEqual(ids.sort().slice(0, 2));
    expect(page1.json.data.items[0].role).toBe('organization_owner');
    expect(page1.json.data.next_cursor).toEqual(expect.any(String));
    const page2 = await t.call(owner, 'GET', `/v1/organizations?limit=2&cursor=${page1.json.data.next_cursor}`);
    expect(page2.json.data).toEqual({ items: [expect.objectContaining({ id: ids[2] })], next_cursor: null });
  });

  it('a bad limit or a cursor this list did not give out is 422 validation.failed', async () => {
    for (const query of ['limit=0', 'limit=101', 'limit=ten', 'cursor=abc', 'cursor=c1.%2F%2F']) {
      const res = await t.call(owner, 'GET', `/v1/organizations?${query}`);
      expect(outcome(res), query).toBe('422 validation.failed');
    }
    expect((await t.call(owner, 'GET', '/v1/organizations?limit=100')).status).toBe(200);
  });

  it('an API key sees its own organization only, with its own role', async () => {
    const org = await createOrg(owner);
    await createOrg(owner, 'Second');
    const key = createApiKey(t.services.controlDb, { organizationId: org.id, role: 'viewer' }).key;
    const res = await t.call(key, 'GET', '/v1/organizations');
    expect(res.json.data).toEqual({
      items: [expect.objectContaining({ id: org.id, role: 'viewer' })],
      next_cursor: null,
    });
  });
});

describe('GET, PATCH /v1/organizations/:id', () => {
  it('a member reads it with its role; a stranger gets 404 organization.not_found, as for an id that does not exist', async () => {
    const org = await createOrg(owner);
    const res = await t.call(owner, 'GET', `/v1/organizations/${org.id}`);
    expect(res.json.data).toMatchObject({
      id: org.id,
      name: 'Acme Bikes',
      slug: 'acme-bikes',
      plan: 'free',
      role: 'organization_owner',
    });
    const stranger = t.user('stranger@corp.test');
    expect(outcome(await t.call(stranger, 'GET', `/v1/organizations/${org.id}`))).toBe('404 organization.not_found');
    expect(outcome(await t.call(stranger, 'GET', '/v1/organizations/org_nope'))).toBe('404 organization.not_found');
  });

  it('organization_admin renames it (the slug stays); an editor is 403 auth.forbidden; a stranger 403 auth.tenant_mismatch', async () => {
    const org = await createOrg(owner);
    const editor = t.user('editor@corp.test');
    const admin = t.user('admin@corp.test');
    await t.call(owner, 'POST', `/v1/organizations/${org.id}/members`, { email: 'editor@corp.test', role: 'editor' });
    await t.call(owner, 'POST', `/v1/organizations/${org.id}/members`, {
      email: 'admin@corp.test',
      role: 'organization_admin',
    });
    expect(outcome(await t.call(editor, 'PATCH', `/v1/organizations/${org.id}`, { name: 'Nope' }))).toBe(
      '403 auth.forbidden',
    );
    expect(outcome(await t.call(t.user('x@corp.test'), 'PATCH', `/v1/organizations/${org.id}`, { name: 'Nope' }))).toBe(
      '403 auth.tenant_mismatch',
    );
    const res = await t.call(admin, 'PATCH', `/v1/organizations/${org.id}`, { name: 'Acme Cycles' });
    expect(res.json.data).toMatchObject({ name: 'Acme Cycles', slug: 'acme-bikes', role: 'organization_admin' });
    expect(outcome(await t.call(admin, 'PATCH', `/v1/organizations/${org.id}`, { slug: 'other' }))).toBe(
      '422 validation.failed',
    );
  });
});

describe('DELETE /v1/organizations/:id', () => {
  it('an owner deletes an organization without websites (204); afterwards it reads 404 and its members, keys and audit rows are gone', async () => {
    const org = await createOrg(owner);
    createApiKey(t.services.controlDb, { organizationId: org.id, role: 'editor' });
    expect(outcome(await t.call(owner, 'DELETE', `/v1/organizations/${org.id}`))).toBe('204');
    expect(outcome(await t.call(owner, 'GET', `/v1/organizations/${org.id}`))).toBe('404 organization.not_found');
    const db = t.services.controlDb;
    for (const table of ['members', 'api_keys', 'audit_log'])
      expect(db.prepare(`SELECT COUNT(*) FROM ${table} WHERE organization_id = ?`).pluck().get(org.id), table).toBe(0);
    expect(db.prepare('SELECT COUNT(*) FROM users WHERE id = ?').pluck().get(owner)).toBe(1);
  });

  it('refuses while websites exist: 409 organization.not_empty (erase removes those)', async () => {
    const org = await createOrg(owner);
    createWebsite(t.services.controlDb, { organizationId: org.id, domain: 'acme-delete.test', name: 'Acme' });
    const res = await t.call(owner, 'DELETE', `/v1/organizations/${org.id}`);
    expect(outcome(res)).toBe('409 organization.not_empty');
    expect(res.json.error.message).toMatch(/erase/);
  });

  it('needs organization_owner (an admin is 403) and a user session (an API key is 403 auth.forbidden)', async () => {
    const org = await createOrg(owner);
    const admin = t.user('admin@corp.test');
    await t.call(owner, 'POST', `/v1/organizations/${org.id}/members`, {
      email: 'admin@corp.test',
      role: 'organization_admin',
    });
    expect(outcome(await t.call(admin, 'DELETE', `/v1/organizations/${org.id}`))).toBe('403 auth.forbidden');
    const key = createApiKey(t.services.controlDb, { organizationId: org.id, role: 'organization_admin' }).key;
    expect(outcome(await t.call(key, 'DELETE', `/v1/organizations/${org.id}`))).toBe('403 auth.forbidden');
    expect((await t.call(owner, 'GET', `/v1/organizations/${org.id}`)).status).toBe(200);
  });

  it('refuses during a pending transfer (403 privacy.erasure_forbidden) and during an erasure (409 privacy.erasure_in_progress)', async () => {
    const org = await createOrg(owner);
    await t.call(owner, 'POST', `/v1/organizations/${org.id}/transfer`, { email: 'buyer@corp.test' });
    expect(outcome(await t.call(owner, 'DELETE', `/v1/organizations/${org.id}`))).toBe('403 privacy.erasure_forbidden');
    await t.call(owner, 'POST', `/v1/organizations/${org.id}/transfer/cancel`);
    expect(outcome(await t.call(owner, 'POST', `/v1/organizations/${org.id}/erase`, { confirm: org.slug }))).toBe(
      '202',
    );
    expect(outcome(await t.call(owner, 'DELETE', `/v1/organizations/${org.id}`))).toBe(
      '409 privacy.erasure_in_progress',
    );
  });
});

describe('billing', () => {
  it('POST /v1/billing/checkout and /v1/billing/portal answer 503 billing.unconfigured, not retryable', async () => {
    for (const path of ['/v1/billing/checkout', '/v1/billing/portal']) {
      const res = await t.call(owner, 'POST', path, {});
      expect(outcome(res)).toBe('503 billing.unconfigured');
      expect(res.json.error.retryable).toBe(false);
      expect(res.headers['retry-after']).toBeUndefined();
      expect(outcome(await t.call(undefined, 'POST', path))).toBe('503 billing.unconfigured');
    }
  });
});
