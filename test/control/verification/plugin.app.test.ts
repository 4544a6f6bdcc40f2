import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verificationCheckJob } from '../../../src/control/verification/check-job.js';
import { startHarness, type Harness } from '../websites/harness.js';

/**
 * Method plugin: the website's connector carries the challenge token in a signed heartbeat (the
 * HMAC signature covers the body). The operator here lets unverified websites have connectors,
 * as the plugin needs one before the website is verified (docs/websites.md "Plugin").
 */

const DAY = 24 * 60 * 60 * 1000;
let h: Harness;
let owner: { id: string; token: string };
let org: string;

beforeAll(async () => {
  h = await startHarness({ allowUnverifiedConnectors: true });
  owner = h.user('owner');
  org = h.organization(owner, 'business');
}, 60_000);
afterAll(async () => h?.close());

async function pluginSite(domain: string) {
  const site = await h.website(org, owner.token, domain);
  const connector = (
    await h.call('POST', `/v1/websites/${site.id}/connectors`, owner.token, {
      connectorType: 'wordpress',
      sourceTypes: ['page'],
    })
  ).json.data;
  return { ...site, connector };
}
const challenge = (id: string) =>
  h.call('POST', `/v1/websites/${id}/verification/challenge`, owner.token, { method: 'plugin' });
const state = async (id: string) => (await h.call('GET', `/v1/websites/${id}/verification`, owner.token)).json.data;

describe('plugin verification through a signed heartbeat', () => {
  it('a heartbeat carrying the token verifies the website at once (tier plugin_signed, 0.9), recorded with the connector as actor', async () => {
    const site = await pluginSite('plugin.example.com');
    const issued = await challenge(site.id);
    expect(issued.json.data.challenge.instructions).toMatchObject({
      heartbeatField: 'verification_token',
      value: issued.json.data.challenge.token,
    });
    const beat = await h.heartbeat(site.connector.token, site.id, {
      verification_token: issued.json.data.challenge.token,
    });
    expect({ status: beat.status, next: beat.json.data.next_action }).toEqual({ status: 200, next: 'continue' });
    expect(await state(site.id)).toMatchObject({
      state: 'verified',
      method: 'plugin',
      trustTier: 'plugin_signed',
      trustScore: 0.9,
    });
    expect((await state(site.id)).history[0]).toMatchObject({
      event: 'plugin_heartbeat',
      result: 'passed',
      actor: `connector:${site.connector.id}`,
    });
    // The check route reads the same proof.
    expect(
      (await h.call('POST', `/v1/websites/${site.id}/verification/check`, owner.token)).json.data.check,
    ).toMatchObject({ method: 'plugin', passed: true });
  });

  it('a heartbeat with another token, or before the challenge, proves nothing; the heartbeat itself still succeeds', async () => {
    const site = await pluginSite('plugin-wrong.example.com');
    const early = await h.call('POST', `/v1/websites/${site.id}/verification/challenge`, owner.token, {
      method: 'dns_txt',
    });
    const token = early.json.data.challenge.token as string;
    // The token sent while the challenge asked for dns_txt: kept as proof,
    // but the plugin check needs a heartbeat after a plugin challenge.
    expect((await h.heartbeat(site.connector.token, site.id, { verification_token: token })).status).toBe(200);
    expect((await state(site.id)).state).toBe('pending');
    h.clock.advance(1000);
    await challenge(site.id);
    expect((await h.heartbeat(site.connector.token, site.id, { verification_token: 'f'.repeat(32) })).status).toBe(200);
    const check = await h.call('POST', `/v1/websites/${site.id}/verification/check`, owner.token);
    expect(check.json.data).toMatchObject({
      state: 'pending',
      check: { passed: false, evidence: expect.stringContaining('older than the challenge') },
    });
    expect((await h.heartbeat(site.connector.token, site.id, { verification_token: 42 })).status).toBe(422);
  });

  it("the daily re-check fails once the plugin stops sending the token for 2 days (grace), and a suspended connector's proof does not count", async () => {
    const site = await pluginSite('plugin-quiet.example.com');
    const token = (await challenge(site.id)).json.data.challenge.token as string;
    await h.heartbeat(site.connector.token, site.id, { verification_token: token });
    expect((await state(site.id)).state).toBe('verified');
    h.clock.advance(DAY + 1);
    await h.heartbeat(site.connector.token, site.id, { verification_token: token });
    h.t.services.jobs.enqueue(verificationCheckJob, {});
    await h.runJobs();
    expect((await state(site.id)).state).toBe('verified');
    h.clock.advance(2 * DAY + 1);
    h.t.services.jobs.enqueue(verificationCheckJob, {});
    await h.runJobs();
    expect(await state(site.id)).toMatchObject({ state: 'grace', trustScore: 0.45 });
    await h.heartbeat(site.connector.token, site.id, { verification_token: token });
    expect((await state(site.id)).state).toBe('verified');

    await h.call('POST', `/v1/connectors/${site.connector.id}/suspend`, owner.token);
    const check = await h.call('POST', `/v1/websites/${site.id}/verification/check`, owner.token);
    expect(check.json.data).toMatchObject({
      state: 'grace',
      check: { passed: false, evidence: expect.stringContaining('no longer active') },
    });
  });
});
