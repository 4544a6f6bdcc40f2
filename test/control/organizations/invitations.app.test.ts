import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiKey } from '../../../src/control/records/api-keys.js';
import { setOrganizationPlan } from '../../../src/control/records/organizations.js';
import { buildOrgApp, outcome, sentMails, type OrgTestApp } from './support.js';

let t: OrgTestApp;
let owner: string;
let orgId: string;
const DAY = 24 * 3600 * 1000;
const org = (path: string, id = orgId) => `/v1/organizations/${id}${path}`;

beforeEach(async () => {
  t = await buildOrgApp();
  owner = t.user('owner@corp.test');
  orgId = (await t.call(owner, 'POST', '/v1/organizations', { name: 'Acme' })).json.data.id;
});
afterEach(async () => t.close());

/** Invites an address without an account through the API; returns the invitation's id. */
async function invite(email: string, role = 'viewer', id = orgId, as = owner): Promise<string> {
  const res = await t.call(as, 'POST', org('/members', id), { email, role });
  expect(outcome(res)).toBe('202');
  return res.json.data.invitation.id as string;
}

async function member(email: string, role: string): Promise<string> {
  const id = t.user(email);
  expect(outcome(await t.call(owner, 'POST', org('/members'), { email, role }))).toBe('201');
  return id;
}

const pendingEmails = async (as = owner) =>
  (await t.call(as, 'GET', org('/invitations'))).json.data.items.map((i: { email: string }) => i.email);
const seatsUsed = async () => (await t.call(owner, 'GET', org('/entitlements'))).json.data.limits.members.used;
const roleOf = (userId: string) =>
  t.services.controlDb
    .prepare('SELECT role FROM members WHERE organization_id = ? AND user_id = ?')
    .pluck()
    .get(orgId, userId);

describe('GET /v1/organizations/:id/invitations', () => {
  it('lists the pending invitations with who invited, never the token; accepted and expired ones are not listed', async () => {
    setOrganizationPlan(t.services.controlDb, orgId, 'pro');
    await invite('old@corp.test');
    t.clock.advance(6 * DAY);
    const id = await invite('pending@corp.test', 'editor');
    await invite('joined@corp.test');
    t.clock.advance(2 * DAY); // old@ has expired (7 days), pending@ has not
    const joined = t.user('joined@corp.test'); // a verified account joins on its next organization list
    await t.call(joined, 'GET', '/v1/organizations');
    expect(roleOf(joined)).toBe('viewer');

    const res = await t.call(owner, 'GET', org('/invitations'));
    expect(outcome(res)).toBe('200');
    expect(res.json.data).toEqual({
      items: [
        {
          id,
          email: 'pending@corp.test',
          role: 'editor',
          invitedBy: owner,
          invitedByEmail: 'owner@corp.test',
          createdAt: new Date(t.clock.now() - 2 * DAY).toISOString(),
          expiresAt: new Date(t.clock.now() + 5 * DAY).toISOString(),
        },
      ],
      next_cursor: null,
    });
    expect(id).toMatch(/^inv_[0-9A-Z]{26}$/);
    const token = sentMails(t.dataDir).find((m) => m.to === 'pending@corp.test')!.token!;
    expect(res.body).not.toContain(token);
    expect(res.body).not.toMatch(/token/i);
  });

  it('pages by id with limit and cursor; inviting the address again renews the invitation under the same id', async () => {
    const ids = [await invite('a@corp.test'), await invite('b@corp.test')];
    expect(await invite('a@corp.test', 'editor')).toBe(ids[0]);
    const first = await t.call(owner, 'GET', `${org('/invitations')}?limit=1`);
    expect(first.json.data.items).toEqual([expect.objectContaining({ id: [...ids].sort()[0] })]);
    const rest = await t.call(owner, 'GET', `${org('/invitations')}?limit=1&cursor=${first.json.data.next_cursor}`);
    expect(rest.json.data).toEqual({ items: [expect.objectContaining({ id: [...ids].sort()[1] })], next_cursor: null });
    expect(outcome(await t.call(owner, 'GET', `${org('/invitations')}?cursor=c1.%2F%2F`))).toBe(
      '422 validation.failed',
    );
    const all = (await t.call(owner, 'GET', org('/invitations'))).json.data.items;
    expect(all.find((i: { email: string }) => i.email === 'a@corp.test').role).toBe('editor');
  });

  it('an admin and an admin API key may read them; an editor or viewer is 403 auth.forbidden; a stranger 404 organization.not_found', async () => {
    await invite('x@corp.test');
    const admin = await member('admin@corp.test', 'organization_admin');
    expect(await pendingEmails(admin)).toEqual(['x@corp.test']);
    const key = createApiKey(t.services.controlDb, { organizationId: orgId, role: 'organization_admin' }).key;
    expect(outcome(await t.call(key, 'GET', org('/invitations')))).toBe('200');
    setOrganizationPlan(t.services.controlDb, orgId, 'pro');
    for (const role of ['editor', 'viewer']) {
      const who = await member(`${role}@corp.test`, role);
      expect(outcome(await t.call(who, 'GET', org('/invitations'))), role).toBe('403 auth.forbidden');
    }
    expect(outcome(await t.call(t.user('stranger@corp.test'), 'GET', org('/invitations')))).toBe(
      '404 organization.not_found',
    );
  });
});

describe('DELETE /v1/organizations/:id/invitations/:invitationId', () => {
  it('withdraws it: 204, the seat is free, the audit log says so, and the address no longer joins when it signs up and confirms', async () => {
    const id = await invite('newbie@corp.test', 'editor');
    expect(await seatsUsed()).toBe(2);
    expect(outcome(await t.call(owner, 'DELETE', org(`/invitations/${id}`)))).toBe('204');
    expect(await seatsUsed()).toBe(1);
    expect(await pendingEmails()).toEqual([]);
    expect(
      t.services.controlDb
        .prepare(`SELECT used_at FROM mail_tokens WHERE kind = 'invitation' AND email = 'newbie@corp.test'`)
        .pluck()
        .get(),
    ).toBe(t.clock.now());
    const [entry] = (await t.call(owner, 'GET', org('/audit'))).json.data.items;
    expect(entry).toMatchObject({
      action: 'member.invitation_withdrawn',
      actor: { kind: 'user', id: owner },
      target: 'newbie@corp.test',
      details: { invitation_id: id, role: 'editor' },
    });

    expect(
      outcome(
        await t.call(undefined, 'POST', '/v1/auth/register', {
          email: 'newbie@corp.test',
          password: 'correct-horse-battery',
          orgName: 'Newbie Ltd',
        }),
      ),
    ).toBe('201');
    await t.runJobs(); // the verification mail leaves through the accounts.mail job
    const verification = sentMails(t.dataDir).find((m) => m.subject === 'Confirm your email address')!;
    expect(outcome(await t.call(undefined, 'POST', '/v1/auth/verify-email', { token: verification.token }))).toBe(
      '200',
    );
    const userId = t.services.controlDb
      .prepare('SELECT id FROM users WHERE email = ?')
      .pluck()
      .get('newbie@corp.test') as string;
    await t.call(userId, 'GET', '/v1/organizations');
    expect(roleOf(userId)).toBeUndefined();
    // Withdrawn is gone: a second withdrawal is 404.
    expect(outcome(await t.call(owner, 'DELETE', org(`/invitations/${id}`)))).toBe(
      '404 organization.invitation_not_found',
    );
  });

  it('a full plan takes a new invitation again once one is withdrawn', async () => {
    await invite('one@corp.test');
    const two = await invite('two@corp.test');
    const full = await t.call(owner, 'POST', org('/members'), { email: 'three@corp.test', role: 'viewer' });
    expect(outcome(full)).toBe('403 entitlement.limit_reached');
    expect(full.json.error.message).toContain('withdraw a pending invitation');
    expect(outcome(await t.call(owner, 'DELETE', org(`/invitations/${two}`)))).toBe('204');
    await invite('three@corp.test');
  });

  it("another organization's invitation through this organization's path is 404, and stays; an unknown or expired id is 404 too", async () => {
    const other = t.user('other@corp.test');
    const otherOrg = (await t.call(other, 'POST', '/v1/organizations', { name: 'Other' })).json.data.id as string;
    const foreign = await invite('theirs@corp.test', 'viewer', otherOrg, other);
    const res = await t.call(owner, 'DELETE', org(`/invitations/${foreign}`));
    expect(outcome(res)).toBe('404 organization.invitation_not_found');
    expect(res.json.error.message).toContain('GET /v1/organizations/:id/invitations');
    const theirs = await t.call(other, 'GET', org('/invitations', otherOrg));
    expect(theirs.json.data.items).toEqual([expect.objectContaining({ id: foreign })]);
    expect(outcome(await t.call(owner, 'DELETE', org('/invitations/inv_nothing')))).toBe(
      '404 organization.invitation_not_found',
    );
    const stale = await invite('stale@corp.test');
    t.clock.advance(8 * DAY);
    expect(outcome(await t.call(owner, 'DELETE', org(`/invitations/${stale}`)))).toBe(
      '404 organization.invitation_not_found',
    );
  });

  it('an editor is 403 auth.forbidden, an API key 403 (a user session is needed), a stranger 403 auth.tenant_mismatch; the invitation stays', async () => {
    const id = await invite('kept@corp.test');
    const editor = await member('editor@corp.test', 'editor');
    expect(outcome(await t.call(editor, 'DELETE', org(`/invitations/${id}`)))).toBe('403 auth.forbidden');
    const key = createApiKey(t.services.controlDb, { organizationId: orgId, role: 'organization_admin' }).key;
    expect(outcome(await t.call(key, 'DELETE', org(`/invitations/${id}`)))).toBe('403 auth.forbidden');
    expect(outcome(await t.call(t.user('stranger@corp.test'), 'DELETE', org(`/invitations/${id}`)))).toBe(
      '403 auth.tenant_mismatch',
    );
    expect(await pendingEmails()).toEqual(['kept@corp.test']);
  });
});
