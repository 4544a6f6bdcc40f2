import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { siteHashOf } from '../../../src/output/publish/layout.js';
import { createTargetFromSettings } from '../../../src/output/publish/targets/index.js';
import { loadWebsiteInfo } from '../../../src/control/records/load-website.js';
import { injectSigned } from '../../helpers/app.js';
import { startHarness, type Harness } from '../websites/harness.js';

/**
 * The verification routes in process: the state, each transition recorded with its evidence and
 * a verification.changed event in the outbox, the errors, and the trust that follows the state
 * into the graph's sources and the published trust.json.
 */

let h: Harness;
let owner: { id: string; token: string };
let org: string;
const DAY = 24 * 60 * 60 * 1000;

beforeAll(async () => {
  h = await startHarness();
  owner = h.user('owner');
  org = h.organization(owner, 'business');
}, 60_000);
afterAll(async () => h?.close());

const path = (id: string, rest = '') => `/v1/websites/${id}/verification${rest}`;

describe('GET, challenge, check', () => {
  it('walks pending -> pending (an early check) -> verified -> grace -> verified, recording every step and each change of state', async () => {
    const site = await h.website(org, owner.token, 'walk.example.com');
    const initial = await h.call('GET', path(site.id), owner.token);
    expect(initial.json.data).toMatchObject({
      websiteId: site.id,
      domain: 'walk.example.com',
      alias: false,
      state: 'pending',
      method: null,
      challenge: null,
      aliases: [],
      history: [],
    });

    const first = await h.call('POST', path(site.id, '/challenge'), owner.token, { method: 'dns_txt' });
    const token = first.json.data.challenge.token as string;
    expect(token).toMatch(/^[0-9a-f]{32}$/);
    expect((await h.call('POST', path(site.id, '/check'), owner.token)).json.data).toMatchObject({
      state: 'pending',
      failureCount: 1,
      challenge: { token },
    });

    const second = await h.call('POST', path(site.id, '/challenge'), owner.token, { method: 'dns_txt' });
    expect({ state: second.json.data.state, token: second.json.data.challenge.token }).toEqual({
      state: 'pending',
      token,
    });
    h.dns.set('_nodectl-verify.walk.example.com', { TXT: [[`nodectl-verify=${token}`]] });
    expect((await h.call('POST', path(site.id, '/check'), owner.token)).json.data).toMatchObject({
      state: 'verified',
      verifiedAt: new Date(h.clock.now()).toISOString(),
    });

    h.clock.advance(DAY);
    h.dns.set('_nodectl-verify.walk.example.com', 'NXDOMAIN');
    const grace = await h.call('POST', path(site.id, '/check'), owner.token);
    expect(grace.json.data).toMatchObject({
      state: 'grace',
      trustTier: 'dns_txt',
      trustScore: 0.5,
      graceUntil: new Date(h.clock.now() + 7 * DAY).toISOString(),
    });
    h.dns.set('_nodectl-verify.walk.example.com', { TXT: [[`nodectl-verify=${token}`]] });
    expect((await h.call('POST', path(site.id, '/check'), owner.token)).json.data).toMatchObject({
      state: 'verified',
      graceUntil: null,
      trustScore: 1,
    });

    const history = (await h.call('GET', path(site.id), owner.token)).json.data.history as Array<
      Record<string, string>
    >;
    expect(history.map((e) => `${e.event} ${e.result} ${e.fromState}->${e.toState}`).reverse()).toEqual([
      'challenge issued pending->pending',
      'check failed pending->pending',
      'challenge issued pending->pending',
      'check passed pending->verified',
      'check failed verified->grace',
      'check passed grace->verified',
    ]);
    expect(history[0]).toMatchObject({
      domain: 'walk.example.com',
      method: 'dns_txt',
      actor: `user:${owner.id}`,
      evidence: expect.stringContaining(`nodectl-verify=${token}`),
    });
    expect(history.find((e) => e.toState === 'grace')!.evidence).toContain('NXDOMAIN');

    const events = h.t.services.controlDb
      .prepare(`SELECT data FROM events_outbox WHERE website_id = ? AND type = 'verification.changed' ORDER BY rowid`)
      .pluck()
      .all(site.id) as string[];
    expect(
      events.map((e) => JSON.parse(e)).map((d) => `${d.previous_state}->${d.state} ${d.trust_tier} ${d.trust_score}`),
    ).toEqual(['pending->verified dns_txt 1', 'verified->grace dns_txt 0.5', 'grace->verified dns_txt 1']);
    // What the compiler and MCP read (load-website) follows too.
    expect(loadWebsiteInfo(h.t.services.controlDb, site.id)?.verification).toEqual({
      method: 'dns_txt',
      state: 'verified',
    });
  });

  it("refuses: manual or an unknown method (422), a domain that is not the website's (404), a check before any challenge (409), a viewer (403); a viewer reads", async () => {
    const site = await h.website(org, owner.token, 'refuse.example.com');
    for (const method of ['manual', 'ftp']) {
      const res = await h.call('POST', path(site.id, '/challenge'), owner.token, { method });
      expect({ status: res.status, field: res.json.error.details.fields[0].path }).toEqual({
        status: 422,
        field: 'method',
      });
    }
    const foreignDomain = await h.call('POST', path(site.id, '/challenge'), owner.token, {
      method: 'dns_txt',
      domain: 'walk.example.com',
    });
    expect({ status: foreignDomain.status, code: foreignDomain.json.error.code }).toEqual({
      status: 404,
      code: 'website.alias_not_found',
    });
    expect((await h.call('POST', path(site.id, '/check'), owner.token)).json.error.code).toBe(
      'verification.challenge_required',
    );
    expect((await h.call('POST', path(site.id, '/check'), owner.token, { nope: 1 })).status).toBe(422);
    const viewer = h.user('viewer');
    h.join(org, viewer, 'viewer');
    expect((await h.call('GET', path(site.id), viewer.token)).status).toBe(200);
    expect(
      (await h.call('POST', path(site.id, '/challenge'), viewer.token, { method: 'dns_txt' })).json.error.code,
    ).toBe('auth.forbidden');
    expect((await h.call('GET', path(site.id), h.user('stranger').token)).json.error.code).toBe('website.not_found');
  });

  it('a challenge by another method while verified keeps the verification; the check falls back to the method that proved it, and upgrades once the new proof is there', async () => {
    const site = await h.website(org, owner.token, 'upgrade.example.com');
    await h.verifyByDns(site.id, site.domain, owner.token);
    const challenge = await h.call('POST', path(site.id, '/challenge'), owner.token, { method: 'well_known_file' });
    expect(challenge.json.data).toMatchObject({
      state: 'verified',
      method: 'dns_txt',
      challenge: { method: 'well_known_file' },
    });
    const fallback = await h.call('POST', path(site.id, '/check'), owner.token);
    expect(fallback.json.data).toMatchObject({
      state: 'verified',
      method: 'dns_txt',
      check: { method: 'dns_txt', passed: true },
    });
    expect(fallback.json.data.check.evidence).toMatch(/^well_known_file failed: .* \| dns_txt passed: /);
  });
});

describe('trust follows the state', () => {
  it("the graph's sources and the published trust.json carry tier weight x state factor", async () => {
    const site = await h.website(org, owner.token, 'trust.example.com');
    const sourcesTrust = () => [
      ...new Set(h.t.services.graphs.get(site.id).prepare('SELECT trust FROM sources').pluck().all() as number[]),
    ];
    await h.verifyByDns(site.id, site.domain, owner.token);
    const connector = (
      await h.call('POST', `/v1/websites/${site.id}/connectors`, owner.token, {
        connectorType: 'test',
        sourceTypes: ['page'],
      })
    ).json.data;
    const html = '<html><head><title>Trust</title></head><body><h1>Trust</h1><p>Owned and verified.</p></body></html>';
    const item = {
      type: 'page',
      id: 'home',
      url: `https://${site.domain}/`,
      title: 'Trust',
      html,
      checksum: `sha256:${createHash('sha256').update(html).digest('hex')}`,
    };
    expect(
      (
        await injectSigned(h.t.app, '/v1/ingest/item', {
          token: connector.token,
          websiteId: site.id,
          nowMs: h.clock.now(),
          body: { website_id: site.id, item },
        })
      ).json.data.status,
    ).toBe('accepted');
    await h.runJobs();
    expect(sourcesTrust()).toEqual([1]);

    const target = await createTargetFromSettings(h.t.services.config.settings);
    const trustJson = async () =>
      JSON.parse((await target.get(`${siteHashOf(site.id)}/latest/trust.json`))!.toString());
    try {
      expect((await h.call('POST', `/v1/websites/${site.id}/publish`, owner.token, {})).status).toBe(200);
      expect(await trustJson()).toMatchObject({
        verification_method: 'dns_txt',
        trust_tier: 'dns_txt',
        verification_state: 'verified',
        trust_score: 1,
      });

      h.dns.set(`_nodectl-verify.${site.domain}`, 'SERVFAIL');
      expect((await h.call('POST', path(site.id, '/check'), owner.token)).json.data.state).toBe('grace');
      expect(sourcesTrust()).toEqual([0.5]);
      expect((await h.call('POST', `/v1/websites/${site.id}/publish`, owner.token, {})).status).toBe(200);
      expect(await trustJson()).toMatchObject({ trust_tier: 'dns_txt', verification_state: 'grace', trust_score: 0.5 });
    } finally {
      await target.close();
    }
  }, 60_000);
});
