import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiKey } from '../../../src/control/records/api-keys.js';
import { buildOrgApp, outcome, sentMails, type OrgTestApp } from './support.js';

let t: OrgTestApp;
let owner: string;
let orgId: string;
const org = (path = '') => `/v1/organizations/${orgId}${path}`;
const roleOf = (userId: string) =>
  t.services.controlDb
    .prepare('SELECT role FROM members WHERE organization_id = ? AND user_id = ?')
    .pluck()
    .get(orgId, userId);
const accept = (as: string | undefined, token: string) =>
  t.call(as, 'POST', `/v1/organizations/transfers/${token}/accept`);

beforeEach(async () => {
  t = await buildOrgApp();
  owner = t.user('owner@corp.test');
  orgId = (await t.call(owner, 'POST', '/v1/organizations', { name: 'Acme' })).json.data.id;
});
afterEach(async () => t.close());

/** Starts a transfer to `email` and returns the token of its mail. */
async function startTransfer(email: string): Promise<string> {
  const res = await t.call(owner, 'POST', org('/transfer'), { email });
  expect(outcome(res)).toBe('201');
  const mail = sentMails(t.dataDir)
    .filter((m) => m.to === email)
    .at(-1)!;
  expect(mail.subject).toBe('Take over the organization Acme');
  return mail.token!;
}

describe('an organization transfer, start to finish', () => {
  it('the owner starts it, the recipient accepts with the mailed token (202 {job_id}), and org.transfer.execute makes them organization_owner and the previous owner organization_admin', async () => {
    const buyer = t.user('buyer@corp.test');
    const start = await t.call(owner, 'POST', org('/transfer'), { email: 'Buyer@corp.test' });
    expect(start.status).toBe(201);
    expect(start.json.data).toMatchObject({
      transfer: {
        email: 'buyer@corp.test',
        state: 'pending',
        expiresAt: new Date(t.clock.now() + 7 * 86_400_000).toISOString(),
      },
      mailSent: true,
    });
    const token = sentMails(t.dataDir)[0]!.token!;
    expect(sentMails(t.dataDir)[0]!.text).toContain('owner@corp.test wants to transfer the organization "Acme" to you');

    const accepted = await accept(buyer, token);
    expect(accepted.status).toBe(202);
    const jobId = accepted.json.data.job_id;
    expect(t.services.jobs.get(jobId)).toMatchObject({ kind: 'org.transfer.execute', state: 'queued' });
    expect(roleOf(buyer)).toBeUndefined(); // the job moves the ownership, not the request
    expect(await t.runJobs()).toBe(1);
    expect(t.services.jobs.get(jobId)).toMatchObject({ state: 'succeeded' });
    expect(roleOf(buyer)).toBe('organization_owner');
    expect(roleOf(owner)).toBe('organization_admin');
    // The new owner acts as owner at once; the old one no longer can.
    expect(outcome(await t.call(owner, 'POST', org('/transfer'), { email: 'x@corp.test' }))).toBe('403 auth.forbidden');
    const audit = (await t.call(buyer, 'GET', org('/audit'))).json.data.items.map(
      (r: { action: string; actor: { kind: string } }) => `${r.action} ${r.actor.kind}`,
    );
    expect(audit.slice(0, 3)).toEqual([
      'organization.transferred system',
      'transfer.accepted user',
      'transfer.requested user',
    ]);
    // The token works once.
    expect(outcome(await accept(buyer, token))).toBe('410 auth.mail_token_used');
  });

  it('a recipient who was already a member is raised to owner; running the job again changes nothing', async () => {
    const admin = t.user('admin@corp.test');
    await t.call(owner, 'POST', org('/members'), { email: 'admin@corp.test', role: 'editor' });
    const token = await startTransfer('admin@corp.test');
    const { job_id: jobId } = (await accept(admin, token)).json.data;
    await t.runJobs();
    const { executeTransfer } = await import('../../../src/control/organizations/transfers.js');
    const transferId = (t.services.jobs.get(jobId)!.payload as { transfer_id: string }).transfer_id;
    executeTransfer(t.services, transferId);
    expect([roleOf(admin), roleOf(owner)]).toEqual(['organization_owner', 'organization_admin']);
  });
});

describe('org.transfer.execute', () => {
  it('when the recipient account was deleted before the job ran, the transfer is cancelled, ownership stays, and the audit log says why', async () => {
    const buyer = t.user('buyer@corp.test');
    const { job_id: jobId } = (await accept(buyer, await startTransfer('buyer@corp.test'))).json.data;
    t.services.controlDb.prepare('DELETE FROM users WHERE id = ?').run(buyer);
    await t.runJobs();
    expect(t.services.jobs.get(jobId)).toMatchObject({ state: 'succeeded' });
    expect(roleOf(owner)).toBe('organization_owner');
    const [failed] = (await t.call(owner, 'GET', org('/audit'))).json.data.items;
    expect(failed).toMatchObject({
      action: 'transfer.failed',
      actor: { kind: 'system', id: null },
      details: { reason: 'the recipient account no longer exists' },
    });
    expect(outcome(await t.call(owner, 'POST', org('/transfer'), { email: 'next@corp.test' }))).toBe('201');
  });
});

describe('POST /v1/organizations/:id/transfer', () => {
  it('one transfer at a time: a second one is 409 organization.transfer_pending until the first is cancelled or expires', async () => {
    await startTransfer('first@corp.test');
    expect(outcome(await t.call(owner, 'POST', org('/transfer'), { email: 'second@corp.test' }))).toBe(
      '409 organization.transfer_pending',
    );
    t.clock.advance(7 * 86_400_000);
    expect(outcome(await t.call(owner, 'POST', org('/transfer'), { email: 'second@corp.test' }))).toBe('201');
  });

  it('a bad or own address is 422 validation.failed; an admin is 403 auth.forbidden; an API key is 403 (a user session is needed)', async () => {
    expect(outcome(await t.call(owner, 'POST', org('/transfer'), { email: 'not-an-email' }))).toBe(
      '422 validation.failed',
    );
    expect(outcome(await t.call(owner, 'POST', org('/transfer'), { email: 'owner@corp.test' }))).toBe(
      '422 validation.failed',
    );
    t.user('admin@corp.test');
    await t.call(owner, 'POST', org('/members'), { email: 'admin@corp.test', role: 'organization_admin' });
    const admin = t.services.controlDb
      .prepare("SELECT id FROM users WHERE email = 'admin@corp.test'")
      .pluck()
      .get() as string;
    expect(outcome(await t.call(admin, 'POST', org('/transfer'), { email: 'b@corp.test' }))).toBe('403 auth.forbidden');
    const key = createApiKey(t.services.controlDb, { organizationId: orgId, role: 'organization_admin' }).key;
    expect(outcome(await t.call(key, 'POST', org('/transfer'), { email: 'b@corp.test' }))).toBe('403 auth.forbidden');
    expect(sentMails(t.dataDir)).toEqual([]);
  });
});

describe('POST /v1/organizations/:id/transfer/cancel', () => {
  it('the owner cancels a pending transfer: its token no longer works (400 auth.mail_token_invalid) and a new transfer may start', async () => {
    const buyer = t.user('buyer@corp.test');
    const token = await startTransfer('buyer@corp.test');
    // The route takes no body: an unknown field is refused and the transfer stays pending; {} is no body.
    expect(outcome(await t.call(owner, 'POST', org('/transfer/cancel'), { reason: 'changed my mind' }))).toBe(
      '422 validation.failed',
    );
    const res = await t.call(owner, 'POST', org('/transfer/cancel'), {});
    expect(res.json.data.transfer).toMatchObject({ email: 'buyer@corp.test', state: 'cancelled' });
    const refused = await accept(buyer, token);
    expect(outcome(refused)).toBe('400 auth.mail_token_invalid');
    expect(refused.json.error.message).toMatch(/cancelled/);
    expect(outcome(await t.call(owner, 'POST', org('/transfer'), { email: 'buyer@corp.test' }))).toBe('201');
  });

  it('with no transfer pending, or one already accepted, it is 404 organization.transfer_not_found', async () => {
    expect(outcome(await t.call(owner, 'POST', org('/transfer/cancel')))).toBe('404 organization.transfer_not_found');
    const buyer = t.user('buyer@corp.test');
    await accept(buyer, await startTransfer('buyer@corp.test'));
    const res = await t.call(owner, 'POST', org('/transfer/cancel'));
    expect(outcome(res)).toBe('404 organization.transfer_not_found');
    expect(res.json.error.message).toMatch(/already accepted/);
  });
});

describe('POST /v1/organizations/transfers/:token/accept', () => {
  it('a signed-in user of another address is 403 auth.forbidden and the token still works for the recipient', async () => {
    const buyer = t.user('buyer@corp.test');
    const thief = t.user('thief@corp.test');
    const token = await startTransfer('buyer@corp.test');
    expect(outcome(await accept(thief, token))).toBe('403 auth.forbidden');
    expect(outcome(await accept(owner, token))).toBe('403 auth.forbidden');
    expect(outcome(await accept(buyer, token))).toBe('202');
  });

  it('after 7 days the token is 410 auth.mail_token_expired; an unknown token 400 auth.mail_token_invalid; no session 401; an API key 403', async () => {
    const buyer = t.user('buyer@corp.test');
    const token = await startTransfer('buyer@corp.test');
    expect(outcome(await accept(buyer, 'A'.repeat(43)))).toBe('400 auth.mail_token_invalid');
    expect(outcome(await accept(buyer, 'short'))).toBe('400 auth.mail_token_invalid');
    expect(outcome(await accept(undefined, token))).toBe('401 auth.unauthenticated');
    const key = createApiKey(t.services.controlDb, { organizationId: orgId, role: 'organization_admin' }).key;
    expect(outcome(await accept(key, token))).toBe('403 auth.forbidden');
    t.clock.advance(7 * 86_400_000);
    expect(outcome(await accept(buyer, token))).toBe('410 auth.mail_token_expired');
    expect(roleOf(buyer)).toBeUndefined();
  });
});
