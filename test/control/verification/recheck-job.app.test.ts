import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JOBS } from '../../../src/daemon/job-definitions.js';
import { verificationCheckJob } from '../../../src/control/verification/check-job.js';
import { grantManualVerification } from '../../../src/control/verification/grant-manual.js';
import { verificationDeps } from '../../../src/control/verification/deps.js';
import { injectSigned } from '../../helpers/app.js';
import { startHarness, type Harness } from '../websites/harness.js';

/**
 * The verification.check job on a fake clock, run by the real worker: the daily re-check of
 * verified domains, grace for 7 days, then revoked; a passing re-check ends grace; manual
 * verifications are left alone; a website whose trust dropped is republished.
 */

const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;
let h: Harness;
let owner: { id: string; token: string };
let org: string;

beforeAll(async () => {
  h = await startHarness();
  owner = h.user('owner');
  org = h.organization(owner, 'business');
}, 60_000);
afterAll(async () => h?.close());

async function runCheckJob(): Promise<void> {
  h.t.services.jobs.enqueue(verificationCheckJob, {});
  await h.runJobs();
}

const stateOf = async (id: string) => (await h.call('GET', `/v1/websites/${id}/verification`, owner.token)).json.data;
const db = () => h.t.services.controlDb;

describe('verification.check', () => {
  it('is a defined job kind, hourly, on the maintenance lane', () => {
    expect(JOBS).toContain(verificationCheckJob);
    expect({
      kind: verificationCheckJob.kind,
      lane: verificationCheckJob.lane,
      schedule: verificationCheckJob.schedule,
    }).toEqual({ kind: 'verification.check', lane: 'maintenance', schedule: { intervalSeconds: 3600 } });
  });

  it('re-checks after a day, starts grace when the proof is gone, keeps the window, revokes when 7 days lapse, and republishes', async () => {
    const site = await h.website(org, owner.token, 'lapsing.example.com');
    await h.verifyByDns(site.id, site.domain, owner.token);
    const manual = await h.website(org, owner.token, 'manual.example.com');
    grantManualVerification(verificationDeps(h.t.services), {
      websiteId: manual.id,
      domain: manual.domain,
      actor: 'operator',
      note: 'known customer',
    });
    // A graph, so a drop in trust asks for a republish.
    const connector = (
      await h.call('POST', `/v1/websites/${site.id}/connectors`, owner.token, {
        connectorType: 'test',
        sourceTypes: ['page'],
      })
    ).json.data;
    const html = '<html><body><p>hello</p></body></html>';
    await injectSigned(h.t.app, '/v1/ingest/item', {
      token: connector.token,
      websiteId: site.id,
      nowMs: h.clock.now(),
      body: {
        website_id: site.id,
        item: {
          type: 'page',
          id: 'p',
          url: `https://${site.domain}/p`,
          html,
          checksum: `sha256:${createHash('sha256').update(html).digest('hex')}`,
        },
      },
    });
    await h.runJobs();
    const events = () =>
      db()
        .prepare(
          "SELECT event || ' ' || result || ' ' || to_state FROM verification_events WHERE website_id = ? ORDER BY rowid",
        )
        .pluck()
        .all(site.id) as string[];
    const before = events().length;

    h.clock.advance(23 * HOUR);
    await runCheckJob();
    expect(events().length).toBe(before);

    h.dns.set(`_nodectl-verify.${site.domain}`, 'NXDOMAIN');
    h.clock.advance(2 * HOUR);
    await runCheckJob();
    const grace = await stateOf(site.id);
    expect(grace).toMatchObject({
      state: 'grace',
      trustScore: 0.5,
      graceUntil: new Date(h.clock.now() + 7 * DAY).toISOString(),
    });
    expect(events().slice(before)).toEqual(['recheck failed grace']);
    expect(
      db()
        .prepare(`SELECT actor FROM verification_events WHERE website_id = ? ORDER BY rowid DESC LIMIT 1`)
        .pluck()
        .get(site.id),
    ).toBe('system');
    expect(
      db()
        .prepare(`SELECT COUNT(*) FROM jobs WHERE kind = 'node.republish' AND payload LIKE ?`)
        .pluck()
        .get(`%${site.id}%`),
    ).toBe(1);
    expect((await stateOf(manual.id)).state).toBe('verified');

    h.clock.advance(6 * DAY);
    await runCheckJob();
    expect(await stateOf(site.id)).toMatchObject({ state: 'grace', graceUntil: grace.graceUntil });

    h.clock.advance(DAY);
    await runCheckJob();
    expect(await stateOf(site.id)).toMatchObject({
      state: 'revoked',
      trustTier: 'unverified',
      trustScore: 0,
      graceUntil: null,
    });
    expect(events().slice(-2)).toEqual(['recheck failed grace', 'lapse lapsed revoked']);
    const changed = db()
      .prepare(
        `SELECT data FROM events_outbox WHERE website_id = ? AND type = 'verification.changed' ORDER BY rowid DESC LIMIT 1`,
      )
      .pluck()
      .get(site.id) as string;
    expect(JSON.parse(changed)).toMatchObject({ previous_state: 'grace', state: 'revoked' });
    // Manual verifications are never re-read: nothing was recorded for it after the grant.
    expect(db().prepare('SELECT event FROM verification_events WHERE website_id = ?').pluck().all(manual.id)).toEqual([
      'manual',
    ]);
    // Revoked: a check needs a new challenge first.
    expect((await h.call('POST', `/v1/websites/${site.id}/verification/check`, owner.token)).json.error.code).toBe(
      'verification.challenge_required',
    );
  }, 60_000);

  it('a re-check that passes again ends grace', async () => {
    const site = await h.website(org, owner.token, 'recovers.example.com');
    await h.verifyByDns(site.id, site.domain, owner.token);
    const record = h.dns;
    const proof = (await stateOf(site.id)).challenge.proof as string;
    record.set(`_nodectl-verify.${site.domain}`, 'SERVFAIL');
    h.clock.advance(DAY + 1);
    await runCheckJob();
    expect((await stateOf(site.id)).state).toBe('grace');
    record.set(`_nodectl-verify.${site.domain}`, { TXT: [[proof]] });
    h.clock.advance(DAY + 1);
    await runCheckJob();
    expect(await stateOf(site.id)).toMatchObject({ state: 'verified', graceUntil: null, trustScore: 1 });
  }, 60_000);
});
