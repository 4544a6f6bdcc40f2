import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { siteHashOf, siteKeys } from '../../../src/output/publish/layout.js';
import { acquirePublishLock } from '../../../src/output/publish/lock.js';
import { createTargetFromSettings } from '../../../src/output/publish/targets/index.js';
import { graphDbPath } from '../../../src/platform/storage/data-dir.js';
import { injectSigned } from '../../helpers/app.js';
import { startHarness, type Harness } from './harness.js';

/**
 * The website routes in process (inject()), each success and each documented error, with real
 * SQLite files, the real fs publish target and a real DNS server on loopback for verification.
 */

let h: Harness;
let owner: { id: string; token: string };
let org: string;

beforeAll(async () => {
  h = await startHarness();
  owner = h.user('owner');
  org = h.organization(owner, 'business');
}, 60_000);
afterAll(async () => h?.close());

const pageItem = (domain: string, id: string) => {
  const html = `<html><head><title>${id}</title></head><body><h1>About ${id}</h1><p>We make things in ${domain}.</p></body></html>`;
  return {
    type: 'page',
    id,
    url: `https://${domain}/${id}`,
    title: `About ${id}`,
    html,
    checksum: `sha256:${createHash('sha256').update(html).digest('hex')}`,
  };
};

describe('create and list websites (POST, GET /v1/organizations/:id/websites)', () => {
  it('creates a website (201, the envelope, pending verification, no aliases) and lists it', async () => {
    const res = await h.call('POST', `/v1/organizations/${org}/websites`, owner.token, {
      domain: 'Create.Example.com',
      name: 'Create',
      brand: 'Create Co',
      defaultLanguage: 'de',
    });
    expect(res.status).toBe(201);
    expect(res.json.ok).toBe(true);
    expect(res.json.meta.requestId).toBe(res.headers['x-request-id']);
    expect(res.json.data).toMatchObject({
      organizationId: org,
      domain: 'create.example.com',
      name: 'Create',
      brand: 'Create Co',
      defaultLanguage: 'de',
      verification: { state: 'pending', method: null, trustTier: 'unverified', trustScore: 0 },
      aliases: [],
    });
    expect(res.json.data.id).toMatch(/^web_[0-9A-Z]{26}$/);
    const list = await h.call('GET', `/v1/organizations/${org}/websites`, owner.token);
    expect(list.status).toBe(200);
    expect(list.json.data.items.map((w: { domain: string }) => w.domain)).toContain('create.example.com');
    expect(list.json.data.next_cursor).toBeNull();
  });

  it('pages the list with ?limit and ?cursor', async () => {
    const paged = h.organization(owner, 'pro');
    for (const name of ['page-a', 'page-b', 'page-c']) await h.website(paged, owner.token, `${name}.example.com`);
    const first = await h.call('GET', `/v1/organizations/${paged}/websites?limit=2`, owner.token);
    expect(first.json.data.items.map((w: { domain: string }) => w.domain)).toEqual([
      'page-a.example.com',
      'page-b.example.com',
    ]);
    const second = await h.call(
      'GET',
      `/v1/organizations/${paged}/websites?limit=2&cursor=${first.json.data.next_cursor}`,
      owner.token,
    );
    expect({
      domains: second.json.data.items.map((w: { domain: string }) => w.domain),
      next: second.json.data.next_cursor,
    }).toEqual({ domains: ['page-c.example.com'], next: null });
  });

  it('the plan limits websites: a free organization gets one, the second is 403 entitlement.limit_reached', async () => {
    const free = h.organization(owner, 'free');
    await h.website(free, owner.token, 'only.example.com');
    const res = await h.call('POST', `/v1/organizations/${free}/websites`, owner.token, {
      domain: 'second.example.com',
      name: 'Second',
    });
    expect({ status: res.status, code: res.json.error.code, details: res.json.error.details }).toMatchObject({
      status: 403,
      code: 'entitlement.limit_reached',
      details: { limit: 1, used: 1 },
    });
  });

  it("a domain belongs to one website: another website's domain or alias is 422 validation.failed on domain", async () => {
    const site = await h.website(org, owner.token, 'taken.example.com');
    expect(
      (await h.call('POST', `/v1/websites/${site.id}/aliases`, owner.token, { domain: 'www.taken.example.com' }))
        .status,
    ).toBe(201);
    for (const domain of ['taken.example.com', 'WWW.taken.example.com']) {
      const res = await h.call('POST', `/v1/organizations/${org}/websites`, owner.token, { domain, name: 'Again' });
      expect({ status: res.status, code: res.json.error.code, field: res.json.error.details.fields[0].path }).toEqual({
        status: 422,
        code: 'validation.failed',
        field: 'domain',
      });
    }
  });

  it('refuses a bad body (422 with each field), an editor (403 auth.forbidden) and a stranger (403 auth.tenant_mismatch)', async () => {
    const bad = await h.call('POST', `/v1/organizations/${org}/websites`, owner.token, {
      domain: 'https://x.example.com/',
      name: '',
      extra: 1,
    });
    expect(bad.status).toBe(422);
    expect(bad.json.error.details.fields.map((f: { path: string }) => f.path).sort()).toEqual([
      '(root)',
      'domain',
      'name',
    ]);
    const editor = h.user('editor');
    h.join(org, editor, 'editor');
    expect(
      (
        await h.call('POST', `/v1/organizations/${org}/websites`, editor.token, {
          domain: 'ed.example.com',
          name: 'Ed',
        })
      ).json.error.code,
    ).toBe('auth.forbidden');
    const stranger = h.user('stranger');
    expect(
      (
        await h.call('POST', `/v1/organizations/${org}/websites`, stranger.token, {
          domain: 'st.example.com',
          name: 'St',
        })
      ).json.error.code,
    ).toBe('auth.tenant_mismatch');
    expect((await h.call('GET', `/v1/organizations/${org}/websites`, stranger.token)).json.error.code).toBe(
      'organization.not_found',
    );
  });
});

describe('read and update a website (GET, PATCH /v1/websites/:id)', () => {
  it('reads it; a stranger gets 404 website.not_found', async () => {
    const site = await h.website(org, owner.token, 'read.example.com');
    const res = await h.call('GET', `/v1/websites/${site.id}`, owner.token);
    expect({ status: res.status, domain: res.json.data.domain }).toEqual({ status: 200, domain: 'read.example.com' });
    expect((await h.call('GET', `/v1/websites/${site.id}`, h.user('nobody').token)).json.error.code).toBe(
      'website.not_found',
    );
  });

  it('an editor updates name, brand and language; the domain cannot change (422 naming what to do instead)', async () => {
    const site = await h.website(org, owner.token, 'update.example.com');
    const editor = h.user('editor2');
    h.join(org, editor, 'editor');
    const res = await h.call('PATCH', `/v1/websites/${site.id}`, editor.token, {
      name: 'Renamed',
      brand: 'Brand',
      defaultLanguage: 'fr',
    });
    expect(res.json.data).toMatchObject({
      name: 'Renamed',
      brand: 'Brand',
      defaultLanguage: 'fr',
      domain: 'update.example.com',
    });
    expect(
      (await h.call('PATCH', `/v1/websites/${site.id}`, editor.token, { brand: null })).json.data.brand,
    ).toBeNull();
    const domain = await h.call('PATCH', `/v1/websites/${site.id}`, editor.token, { domain: 'other.example.com' });
    expect({ status: domain.status, field: domain.json.error.details.fields[0].path }).toEqual({
      status: 422,
      field: 'domain',
    });
    expect(domain.json.error.message).toMatch(/alias/);
    expect((await h.call('PATCH', `/v1/websites/${site.id}`, editor.token, {})).status).toBe(422);
    const viewer = h.user('viewer');
    h.join(org, viewer, 'viewer');
    expect((await h.call('PATCH', `/v1/websites/${site.id}`, viewer.token, { name: 'No' })).json.error.code).toBe(
      'auth.forbidden',
    );
  });
});

describe('delete a website (DELETE /v1/websites/:id)', () => {
  it('removes its graph file, every published version on the target and its rows; its connector stops', async () => {
    const site = await h.website(org, owner.token, 'doomed.example.com');
    await h.verifyByDns(site.id, site.domain, owner.token);
    const connector = await h.call('POST', `/v1/websites/${site.id}/connectors`, owner.token, {
      connectorType: 'test',
      sourceTypes: ['page'],
    });
    const token = connector.json.data.token as string;
    const batch = await injectSigned(h.t.app, '/v1/ingest/batch', {
      token,
      websiteId: site.id,
      nowMs: h.clock.now(),
      body: { website_id: site.id, items: [pageItem(site.domain, 'about')] },
      headers: { 'x-site-domain': site.domain },
    });
    expect(batch.json.data.accepted).toBe(1);
    await h.runJobs();
    const published = await h.call('POST', `/v1/websites/${site.id}/publish`, owner.token, {});
    expect(published.status, published.body).toBe(200);
    const target = await createTargetFromSettings(h.t.services.config.settings);
    const keys = siteKeys(siteHashOf(site.id));
    try {
      expect((await target.list(keys.root)).length).toBeGreaterThan(3);
      expect(existsSync(graphDbPath(h.t.services.layout, site.id))).toBe(true);

      // A daemon's lease on its graph (not yet taken by the daemon itself: docs/scaling.md) goes too.
      h.t.services.controlDb
        .prepare(
          'INSERT INTO website_leases (website_id, owner, token, acquired_at, expires_at) VALUES (?, ?, 1, 0, ?)',
        )
        .run(site.id, 'host:1:01JHKZZZZZZZZZZZZZZZZZZZZZ', h.clock.now() + 30_000);
      const wrong = await h.call('DELETE', `/v1/websites/${site.id}`, owner.token, { confirm: 'other.example.com' });
      expect({ status: wrong.status, code: wrong.json.error.code }).toEqual({ status: 422, code: 'validation.failed' });
      expect((await h.call('DELETE', `/v1/websites/${site.id}`, owner.token)).status).toBe(422);
      const res = await h.call('DELETE', `/v1/websites/${site.id}`, owner.token, { confirm: 'DOOMED.example.com' });
      expect({ status: res.status, body: res.body }).toEqual({ status: 204, body: '' });

      expect(await target.list(keys.root)).toEqual([]);
      expect(await target.head(keys.pointer)).toBeUndefined();
      expect(existsSync(graphDbPath(h.t.services.layout, site.id))).toBe(false);
      expect((await h.call('GET', `/v1/websites/${site.id}`, owner.token)).json.error.code).toBe('website.not_found');
      const db = h.t.services.controlDb;
      for (const table of [
        'websites',
        'verifications',
        'domain_verifications',
        'verification_events',
        'connectors',
        'website_leases',
      ]) {
        expect(
          db
            .prepare(`SELECT COUNT(*) FROM ${table} WHERE ${table === 'websites' ? 'id' : 'website_id'} = ?`)
            .pluck()
            .get(site.id),
          table,
        ).toBe(0);
      }
      expect(
        db.prepare(`SELECT action FROM audit_log WHERE target = ? AND action = 'website.deleted'`).pluck().get(site.id),
      ).toBe('website.deleted');
      expect((await h.heartbeat(token, site.id)).status).toBe(401);
    } finally {
      await target.close();
    }
  }, 60_000);

  it('a delete refused by a running publish (409 publish.conflict) leaves the website whole: its connectors were revoked for good before the fix', async () => {
    const site = await h.website(org, owner.token, 'busy.example.com');
    await h.verifyByDns(site.id, site.domain, owner.token);
    const { token } = (
      await h.call('POST', `/v1/websites/${site.id}/connectors`, owner.token, {
        connectorType: 'test',
        sourceTypes: ['page'],
      })
    ).json.data;
    const lock = acquirePublishLock(h.t.services.controlDb, site.id, { now: h.clock.now });
    try {
      const res = await h.call('DELETE', `/v1/websites/${site.id}`, owner.token, { confirm: site.domain });
      expect({ status: res.status, code: res.json.error.code, retryable: res.json.error.retryable }).toEqual({
        status: 409,
        code: 'publish.conflict',
        retryable: true,
      });
    } finally {
      lock.release();
    }
    expect((await h.heartbeat(token, site.id)).status).toBe(200);
    expect((await h.call('DELETE', `/v1/websites/${site.id}`, owner.token, { confirm: site.domain })).status).toBe(204);
  });

  it('only an organization_admin deletes (an editor is 403 auth.forbidden)', async () => {
    const site = await h.website(org, owner.token, 'kept.example.com');
    const editor = h.user('editor3');
    h.join(org, editor, 'editor');
    expect(
      (await h.call('DELETE', `/v1/websites/${site.id}`, editor.token, { confirm: site.domain })).json.error.code,
    ).toBe('auth.forbidden');
  });
});

describe('transfer a website (POST /v1/websites/:id/transfer)', () => {
  it('moves it at once to an organization the caller owns; its connector keeps working; website.transferred is in the outbox', async () => {
    const source = h.organization(owner, 'pro');
    const target = h.organization(owner, 'pro');
    const site = await h.website(source, owner.token, 'moving.example.com');
    await h.verifyByDns(site.id, site.domain, owner.token);
    const connector = (
      await h.call('POST', `/v1/websites/${site.id}/connectors`, owner.token, {
        connectorType: 'test',
        sourceTypes: ['page'],
      })
    ).json.data;
    const res = await h.call('POST', `/v1/websites/${site.id}/transfer`, owner.token, {
      target_organization_id: target,
    });
    expect({
      status: res.status,
      organizationId: res.json.data.organizationId,
      state: res.json.data.verification.state,
    }).toEqual({ status: 200, organizationId: target, state: 'verified' });
    expect((await h.heartbeat(connector.token, site.id)).status).toBe(200);
    const db = h.t.services.controlDb;
    const event = db
      .prepare(`SELECT data FROM events_outbox WHERE website_id = ? AND type = 'website.transferred'`)
      .pluck()
      .get(site.id) as string;
    expect(JSON.parse(event)).toEqual({ from_organization_id: source, to_organization_id: target });
    expect(
      db
        .prepare(
          `SELECT organization_id || ' ' || action FROM audit_log WHERE target = ? AND action LIKE 'website.transferred%' ORDER BY seq`,
        )
        .pluck()
        .all(site.id),
    ).toEqual([`${source} website.transferred_out`, `${target} website.transferred_in`]);
  });

  it('needs organization_owner on the target: an admin there is 403 auth.forbidden, a stranger 403 auth.tenant_mismatch, an unknown one 404', async () => {
    const site = await h.website(org, owner.token, 'stays.example.com');
    const other = h.user('other-owner');
    const foreign = h.organization(other, 'pro');
    const adminThere = h.organization(other, 'pro');
    h.join(adminThere, owner, 'organization_admin');
    const cases = [
      [adminThere, 'auth.forbidden'],
      [foreign, 'auth.tenant_mismatch'],
      ['org_missing', 'organization.not_found'],
      [org, 'validation.failed'],
    ] as const;
    for (const [targetId, code] of cases)
      expect(
        (await h.call('POST', `/v1/websites/${site.id}/transfer`, owner.token, { target_organization_id: targetId }))
          .json.error.code,
        targetId,
      ).toBe(code);
    expect((await h.call('GET', `/v1/websites/${site.id}`, owner.token)).json.data.organizationId).toBe(org);
  });

  it("the target plan's limit applies (403 entitlement.limit_reached) and an API key may not transfer (403 auth.forbidden)", async () => {
    const site = await h.website(org, owner.token, 'limited.example.com');
    const full = h.organization(owner, 'free');
    await h.website(full, owner.token, 'full.example.com');
    const res = await h.call('POST', `/v1/websites/${site.id}/transfer`, owner.token, { target_organization_id: full });
    expect({ code: res.json.error.code, details: res.json.error.details }).toMatchObject({
      code: 'entitlement.limit_reached',
      details: { limit: 1, used: 1 },
    });
    const key = h.apiKey(org, 'organization_admin');
    expect(
      (await h.call('POST', `/v1/websites/${site.id}/transfer`, key, { target_organization_id: full })).json.error.code,
    ).toBe('auth.forbidden');
  });
});

describe('alias domains (POST, DELETE /v1/websites/:id/aliases)', () => {
  it('an alias is added unverified, verified on its own, then accepted as an item url host; removing it stops that', async () => {
    const site = await h.website(org, owner.token, 'main.example.com');
    await h.verifyByDns(site.id, site.domain, owner.token);
    const connector = (
      await h.call('POST', `/v1/websites/${site.id}/connectors`, owner.token, {
        connectorType: 'test',
        sourceTypes: ['page'],
      })
    ).json.data;
    const ingestOn = (host: string) =>
      injectSigned(h.t.app, '/v1/ingest/item', {
        token: connector.token,
        websiteId: site.id,
        nowMs: h.clock.now(),
        body: { website_id: site.id, item: pageItem(host, `p-${host}`) },
      });

    const added = await h.call('POST', `/v1/websites/${site.id}/aliases`, owner.token, {
      domain: 'www.main.example.com',
    });
    expect({ status: added.status, aliases: added.json.data.aliases }).toEqual({
      status: 201,
      aliases: [{ domain: 'www.main.example.com', state: 'pending', verified: false }],
    });
    expect((await ingestOn('www.main.example.com')).json.data.status).toBe('error');

    await h.verifyByDns(site.id, 'www.main.example.com', owner.token);
    const read = await h.call('GET', `/v1/websites/${site.id}`, owner.token);
    expect(read.json.data.aliases).toEqual([{ domain: 'www.main.example.com', state: 'verified', verified: true }]);
    expect((await ingestOn('www.main.example.com')).json.data.status).toBe('accepted');

    expect((await h.call('DELETE', `/v1/websites/${site.id}/aliases/www.main.example.com`, owner.token)).status).toBe(
      204,
    );
    expect((await h.call('GET', `/v1/websites/${site.id}`, owner.token)).json.data.aliases).toEqual([]);
    expect(
      h.t.services.controlDb
        .prepare('SELECT COUNT(*) FROM domain_verifications WHERE website_id = ? AND is_alias = 1')
        .pluck()
        .get(site.id),
    ).toBe(0);
    const gone = await h.call('DELETE', `/v1/websites/${site.id}/aliases/www.main.example.com`, owner.token);
    expect({ status: gone.status, code: gone.json.error.code }).toEqual({
      status: 404,
      code: 'website.alias_not_found',
    });
  });

  it('refuses a domain in use (422), a bad one (422) and an editor (403)', async () => {
    const site = await h.website(org, owner.token, 'alias-owner.example.com');
    expect(
      (await h.call('POST', `/v1/websites/${site.id}/aliases`, owner.token, { domain: 'alias-owner.example.com' }))
        .status,
    ).toBe(422);
    expect(
      (await h.call('POST', `/v1/websites/${site.id}/aliases`, owner.token, { domain: 'not a domain' })).status,
    ).toBe(422);
    const editor = h.user('editor4');
    h.join(org, editor, 'editor');
    expect(
      (await h.call('POST', `/v1/websites/${site.id}/aliases`, editor.token, { domain: 'x.alias-owner.example.com' }))
        .json.error.code,
    ).toBe('auth.forbidden');
  });
});
