import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiKey } from '../../../src/control/records/api-keys.js';
import { buildOrgApp, outcome, sentMails, type OrgTestApp } from './support.js';

let t: OrgTestApp;
let owner: string;
let orgId: string;
const members = (path = '') => `/v1/organizations/${orgId}/members${path}`;

beforeEach(async () => {
  t = await buildOrgApp();
  owner = t.user('owner@corp.test');
  orgId = (await t.call(owner, 'POST', '/v1/organizations', { name: 'Acme' })).json.data.id;
});
afterEach(async () => t.close());

/** Adds an existing user with a role through the API; returns the user id. */
async function member(email: string, role: string): Promise<string> {
  const id = t.user(email);
  const res = await t.call(owner, 'POST', members(), { email, role });
  expect(outcome(res)).toBe('201');
  return id;
}

const roleOf = (userId: string) =>
  t.services.controlDb
    .prepare('SELECT role FROM members WHERE organization_id = ? AND user_id = ?')
    .pluck()
    .get(orgId, userId);

describe('GET /v1/organizations/:id/members', () => {
  it('any member (viewer up) lists them by user id, paginated; an API key of the organization may read them too', async () => {
    const ids = [owner, await member('a@corp.test', 'viewer'), await member('b@corp.test', 'editor')].sort();
    const viewer = ids.find((id) => roleOf(id) === 'viewer')!;
    const first = await t.call(viewer, 'GET', `${members()}?limit=2`);
    expect(first.json.data.items.map((m: { userId: string }) => m.userId)).toEqual(ids.slice(0, 2));
    const rest = await t.call(viewer, 'GET', `${members()}?cursor=${first.json.data.next_cursor}`);
    expect(rest.json.data).toEqual({ items: [expect.objectContaining({ userId: ids[2] })], next_cursor: null });
    const key = createApiKey(t.services.controlDb, { organizationId: orgId, role: 'viewer' }).key;
    expect((await t.call(key, 'GET', members())).json.data.items).toHaveLength(3);
  });

  it('a stranger is 404 organization.not_found; a bad limit or a cursor this list did not give out is 422 validation.failed naming the parameter', async () => {
    expect(outcome(await t.call(t.user('stranger@corp.test'), 'GET', members()))).toBe('404 organization.not_found');
    for (const [query, field] of [
      ['limit=0', 'limit'],
      ['limit=many', 'limit'],
      ['cursor=c1.%2F%2F', 'cursor'],
    ] as const) {
      const res = await t.call(owner, 'GET', `${members()}?${query}`);
      expect(outcome(res), query).toBe('422 validation.failed');
      expect(res.json.error.details.fields, query).toEqual([expect.objectContaining({ path: field })]);
    }
  });
});

describe('POST /v1/organizations/:id/members', () => {
  it('an existing user is added at once with the role (201); adding them again is 409 organization.member_exists', async () => {
    const user = t.user('dev@corp.test');
    const res = await t.call(owner, 'POST', members(), { email: 'DEV@corp.test', role: 'editor' });
    expect(res.status).toBe(201);
    expect(res.json.data.member).toMatchObject({ userId: user, email: 'dev@corp.test', role: 'editor' });
    expect(outcome(await t.call(owner, 'POST', members(), { email: 'dev@corp.test', role: 'viewer' }))).toBe(
      '409 organization.member_exists',
    );
    expect(sentMails(t.dataDir)).toEqual([]);
  });

  it('an unknown address gets an invitation mail (202) and joins with the role once it signs up and verifies the address (POST /v1/auth/register, /v1/auth/verify-email)', async () => {
    const res = await t.call(owner, 'POST', members(), { email: 'newbie@corp.test', role: 'editor' });
    expect(res.status).toBe(202);
    expect(res.json.data).toMatchObject({ invitation: { email: 'newbie@corp.test', role: 'editor' }, mailSent: true });
    const [invitation] = sentMails(t.dataDir);
    expect(invitation).toMatchObject({ to: 'newbie@corp.test', subject: 'Join Acme on nodectl' });
    expect(invitation!.text).toContain('owner@corp.test invites you to the organization "Acme" as editor');

    const registered = await t.call(undefined, 'POST', '/v1/auth/register', {
      email: 'newbie@corp.test',
      password: 'correct-horse-battery',
      orgName: 'Newbie Ltd',
    });
    expect(registered.status).toBe(201);
    const userId = t.services.controlDb
      .prepare('SELECT id FROM users WHERE email = ?')
      .pluck()
      .get('newbie@corp.test') as string;
    // The verification mail leaves through the accounts.mail job.
    await t.runJobs();
    expect(roleOf(userId)).toBeUndefined(); // not before the address is proven
    const verification = sentMails(t.dataDir).find((m) => m.subject === 'Confirm your email address')!;
    expect(outcome(await t.call(undefined, 'POST', '/v1/auth/verify-email', { token: verification.token }))).toBe(
      '200',
    );
    expect(roleOf(userId)).toBe('editor');
    const audit = await t.call(owner, 'GET', `/v1/organizations/${orgId}/audit`);
    expect(audit.json.data.items.map((r: { action: string }) => r.action)).toEqual(
      expect.arrayContaining(['member.invited', 'member.joined']),
    );
    expect(t.services.controlDb.prepare('SELECT COUNT(*) FROM organization_invitations').pluck().get()).toBe(0);
  });

  it('an invited address that already has a verified account (e.g. Google sign-in) joins on its first GET /v1/organizations; an unverified one does not', async () => {
    await t.call(owner, 'POST', members(), { email: 'late@corp.test', role: 'viewer' });
    await t.call(owner, 'POST', members(), { email: 'unproven@corp.test', role: 'viewer' });
    const late = t.user('late@corp.test');
    const unproven = t.user('unproven@corp.test', { verified: false });
    const list = await t.call(late, 'GET', '/v1/organizations');
    expect(list.json.data.items).toEqual([expect.objectContaining({ id: orgId, role: 'viewer' })]);
    expect((await t.call(unproven, 'GET', '/v1/organizations')).json.data.items).toEqual([]);
    expect(roleOf(unproven)).toBeUndefined();
  });

  it('an expired invitation is not joined; inviting the address again replaces the invitation and its earlier token', async () => {
    await t.call(owner, 'POST', members(), { email: 'slow@corp.test', role: 'viewer' });
    t.clock.advance(8 * 24 * 3600 * 1000);
    const slow = t.user('slow@corp.test');
    expect((await t.call(slow, 'GET', '/v1/organizations')).json.data.items).toEqual([]);
    await t.call(owner, 'POST', members(), { email: 'again@corp.test', role: 'viewer' });
    await t.call(owner, 'POST', members(), { email: 'again@corp.test', role: 'editor' });
    const tokens = t.services.controlDb
      .prepare(
        `SELECT used_at FROM mail_tokens WHERE kind = 'invitation' AND email = 'again@corp.test' ORDER BY created_at, used_at`,
      )
      .pluck()
      .all();
    expect(tokens.filter((used) => used === null)).toHaveLength(1);
    const again = t.user('again@corp.test');
    await t.call(again, 'GET', '/v1/organizations');
    expect(roleOf(again)).toBe('editor');
  });

  it('when the mail cannot be sent the invitation still stands and the answer says mailSent: false', async () => {
    const { rmSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    rmSync(join(t.dataDir, 'mail'), { recursive: true, force: true });
    writeFileSync(join(t.dataDir, 'mail'), 'not a folder');
    const res = await t.call(owner, 'POST', members(), { email: 'offline@corp.test', role: 'viewer' });
    expect(res.status).toBe(202);
    expect(res.json.data).toMatchObject({ invitation: { email: 'offline@corp.test' }, mailSent: false });
    expect(
      t.services.controlDb
        .prepare('SELECT COUNT(*) FROM organization_invitations WHERE email = ?')
        .pluck()
        .get('offline@corp.test'),
    ).toBe(1);
  });

  it('nobody grants a role above their own: an organization_admin adding an organization_owner is 403 auth.forbidden', async () => {
    const admin = await member('admin@corp.test', 'organization_admin');
    t.user('x@corp.test');
    const res = await t.call(admin, 'POST', members(), { email: 'x@corp.test', role: 'organization_owner' });
    expect(outcome(res)).toBe('403 auth.forbidden');
    expect(res.json.error.message).toMatch(/above your own role/);
    expect(outcome(await t.call(admin, 'POST', members(), { email: 'x@corp.test', role: 'organization_admin' }))).toBe(
      '201',
    );
  });

  it('a bad email or role is 422 validation.failed; an editor is 403 auth.forbidden; an API key is 403 (a user session is needed)', async () => {
    for (const body of [
      { email: 'nope', role: 'viewer' },
      { email: 'a@corp.test', role: 'god' },
      { email: 'a@corp.test' },
    ]) {
      expect(outcome(await t.call(owner, 'POST', members(), body))).toBe('422 validation.failed');
    }
    const editor = await member('editor@corp.test', 'editor');
    expect(outcome(await t.call(editor, 'POST', members(), { email: 'z@corp.test', role: 'viewer' }))).toBe(
      '403 auth.forbidden',
    );
    const key = createApiKey(t.services.controlDb, { organizationId: orgId, role: 'organization_admin' }).key;
    const res = await t.call(key, 'POST', members(), { email: 'z@corp.test', role: 'viewer' });
    expect(outcome(res)).toBe('403 auth.forbidden');
    expect(res.json.error.message).toMatch(/sign in as a user/);
  });
});

describe('PATCH and DELETE /v1/organizations/:id/members/:userId', () => {
  it('an admin changes a role (200) and removes a member (204); the audit log records both with the role before', async () => {
    const dev = await member('dev@corp.test', 'viewer');
    const res = await t.call(owner, 'PATCH', members(`/${dev}`), { role: 'editor' });
    expect(res.json.data.member).toMatchObject({ userId: dev, role: 'editor' });
    expect(outcome(await t.call(owner, 'DELETE', members(`/${dev}`)))).toBe('204');
    expect(roleOf(dev)).toBeUndefined();
    const actions = (await t.call(owner, 'GET', `/v1/organizations/${orgId}/audit`)).json.data.items;
    expect(actions.slice(0, 2)).toEqual([
      expect.objectContaining({
        action: 'member.removed',
        target: dev,
        actor: { kind: 'user', id: owner },
        details: { role_before: 'editor' },
      }),
      expect.objectContaining({
        action: 'member.role_changed',
        target: dev,
        details: { role_before: 'viewer', role: 'editor' },
      }),
    ]);
  });

  it('the last owner cannot be demoted or removed (409 organization.last_owner); with a second owner both work', async () => {
    expect(outcome(await t.call(owner, 'PATCH', members(`/${owner}`), { role: 'organization_admin' }))).toBe(
      '409 organization.last_owner',
    );
    expect(outcome(await t.call(owner, 'DELETE', members(`/${owner}`)))).toBe('409 organization.last_owner');
    expect(roleOf(owner)).toBe('organization_owner');
    const second = await member('second@corp.test', 'organization_owner');
    expect(outcome(await t.call(second, 'PATCH', members(`/${owner}`), { role: 'editor' }))).toBe('200');
    expect(outcome(await t.call(second, 'DELETE', members(`/${owner}`)))).toBe('204');
    expect(outcome(await t.call(second, 'DELETE', members(`/${second}`)))).toBe('409 organization.last_owner');
  });

  it('an admin may neither raise anyone to owner nor change or remove an owner (403 auth.forbidden)', async () => {
    const admin = await member('admin@corp.test', 'organization_admin');
    const dev = await member('dev@corp.test', 'viewer');
    expect(outcome(await t.call(admin, 'PATCH', members(`/${dev}`), { role: 'organization_owner' }))).toBe(
      '403 auth.forbidden',
    );
    expect(outcome(await t.call(admin, 'PATCH', members(`/${owner}`), { role: 'viewer' }))).toBe('403 auth.forbidden');
    expect(outcome(await t.call(admin, 'DELETE', members(`/${owner}`)))).toBe('403 auth.forbidden');
    expect(outcome(await t.call(admin, 'PATCH', members(`/${dev}`), { role: 'organization_admin' }))).toBe('200');
  });

  it('a user who is not a member is 404 member.not_found; a bad role 422; a stranger 403 auth.tenant_mismatch', async () => {
    const outsider = t.user('outsider@corp.test');
    expect(outcome(await t.call(owner, 'PATCH', members(`/${outsider}`), { role: 'viewer' }))).toBe(
      '404 member.not_found',
    );
    expect(outcome(await t.call(owner, 'DELETE', members('/usr_nobody')))).toBe('404 member.not_found');
    expect(outcome(await t.call(owner, 'PATCH', members(`/${owner}`), { role: 'boss' }))).toBe('422 validation.failed');
    expect(outcome(await t.call(outsider, 'DELETE', members(`/${owner}`)))).toBe('403 auth.tenant_mismatch');
  });
});
