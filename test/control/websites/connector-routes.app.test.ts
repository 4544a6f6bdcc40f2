import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeConnector } from '../../../src/control/access/authorize.js';
import { RETIRED_SECRETS_KEPT } from '../../../src/control/connectors/index.js';
import type { Principal } from '../../../src/control/access/principal.js';
import { injectSigned } from '../../helpers/app.js';
import { startHarness, type Harness } from './harness.js';

/**
 * Connectors over HTTP in process: create (verified websites only, unless the operator allows
 * unverified ones), list without secrets, rotate, suspend, resume, delete; the token minted over
 * HTTP signs real ingest requests (the HMAC flow) and stops when the lifecycle says so.
 */

let h: Harness;
let owner: { id: string; token: string };
let org: string;
let site: { id: string; domain: string };

beforeAll(async () => {
  h = await startHarness();
  owner = h.user('owner');
  org = h.organization(owner, 'business');
  site = await h.website(org, owner.token, 'conn.example.com');
  await h.verifyByDns(site.id, site.domain, owner.token);
}, 60_000);
afterAll(async () => h?.close());

const create = (
  websiteId: string,
  token = owner.token,
  body: unknown = { name: 'WordPress', connectorType: 'wordpress', sourceTypes: ['post', 'page', 'post'] },
) => h.call('POST', `/v1/websites/${websiteId}/connectors`, token, body);

function batch(token: string, id: string) {
  const html = `<html><body><p>${id}</p></body></html>`;
  const item = {
    type: 'post',
    id,
    url: `https://${site.domain}/${id}`,
    html,
    checksum: `sha256:${createHash('sha256').update(html).digest('hex')}`,
  };
  return injectSigned(h.t.app, '/v1/ingest/batch', {
    token,
    websiteId: site.id,
    nowMs: h.clock.now(),
    body: { website_id: site.id, items: [item] },
  });
}

describe('create and list (POST, GET /v1/websites/:id/connectors)', () => {
  it('creates a connector: 201, its token shown once, token version 1; the token signs ingest requests (HMAC)', async () => {
    const res = await create(site.id);
    expect(res.status).toBe(201);
    expect(res.json.data).toMatchObject({
      name: 'WordPress',
      connectorType: 'wordpress',
      scope: { websiteId: site.id, sourceTypes: ['page', 'post'] },
      tokenVersion: 1,
      status: 'active',
    });
    expect(res.json.data.token).toMatch(new RegExp(`^${res.json.data.id}\\.[A-Za-z0-9_-]{43}$`));
    const ingest = await batch(res.json.data.token, 'first');
    expect({ status: ingest.status, accepted: ingest.json.data.accepted }).toEqual({ status: 200, accepted: 1 });
  });

  it('lists connectors without any secret, paged', async () => {
    await create(site.id);
    const list = await h.call('GET', `/v1/websites/${site.id}/connectors?limit=1`, owner.token);
    expect(list.status).toBe(200);
    expect(list.json.data.items).toHaveLength(1);
    expect(list.json.data.next_cursor).toEqual(expect.any(String));
    const all = await h.call('GET', `/v1/websites/${site.id}/connectors`, owner.token);
    expect(all.body).not.toMatch(/token"|secret|hash/i);
    expect(all.json.data.items.length).toBeGreaterThanOrEqual(2);
    const viewer = h.user('viewer');
    h.join(org, viewer, 'viewer');
    expect((await h.call('GET', `/v1/websites/${site.id}/connectors`, viewer.token)).status).toBe(200);
  });

  it('refuses a website that is not verified with 409 website.not_verified, unless allowUnverifiedConnectors is set', async () => {
    const unverified = await h.website(org, owner.token, 'unverified.example.com');
    const res = await create(unverified.id);
    expect({ status: res.status, code: res.json.error.code }).toEqual({ status: 409, code: 'website.not_verified' });
    expect(res.json.error.message).toContain('/verification/challenge');
    const lenient = await startHarness({ allowUnverifiedConnectors: true });
    try {
      const user = lenient.user('lenient');
      const orgId = lenient.organization(user, 'pro');
      const other = await lenient.website(orgId, user.token, 'lenient.example.com');
      expect(
        (
          await lenient.call('POST', `/v1/websites/${other.id}/connectors`, user.token, {
            connectorType: 'files',
            sourceTypes: ['page'],
          })
        ).status,
      ).toBe(201);
    } finally {
      await lenient.close();
    }
  });

  it('a website in grace still counts as verified (the check MCP makes)', async () => {
    const graced = await h.website(org, owner.token, 'graced.example.com');
    await h.verifyByDns(graced.id, graced.domain, owner.token);
    h.dns.set(`_nodectl-verify.${graced.domain}`, 'NXDOMAIN');
    expect((await h.call('POST', `/v1/websites/${graced.id}/verification/check`, owner.token)).json.data.state).toBe(
      'grace',
    );
    expect((await create(graced.id)).status).toBe(201);
  });

  it('refuses a bad body (422), an editor (403 auth.forbidden) and a stranger (403 auth.tenant_mismatch)', async () => {
    const bad = await create(site.id, owner.token, { connectorType: 'no spaces allowed', sourceTypes: [] });
    expect(bad.json.error.details.fields.map((f: { path: string }) => f.path).sort()).toEqual([
      'connectorType',
      'sourceTypes',
    ]);
    const editor = h.user('editor');
    h.join(org, editor, 'editor');
    expect((await create(site.id, editor.token)).json.error.code).toBe('auth.forbidden');
    expect((await create(site.id, h.user('stranger').token)).json.error.code).toBe('auth.tenant_mismatch');
  });
});

describe('the lifecycle (rotate, suspend, resume, delete)', () => {
  it('rotate issues a new token once and the old one stops at once (401 auth.token_revoked: a stale token version)', async () => {
    const first = (await create(site.id)).json.data;
    const rotated = await h.call('POST', `/v1/connectors/${first.id}/rotate`, owner.token);
    expect({ status: rotated.status, version: rotated.json.data.tokenVersion }).toEqual({ status: 200, version: 2 });
    expect(rotated.json.data.token).not.toBe(first.token);
    expect((await batch(first.token, 'old')).json.error.code).toBe('auth.token_revoked');
    expect((await batch(rotated.json.data.token, 'new')).json.data.accepted).toBe(1);
  });

  it('suspend refuses the token until resume; delete revokes it for good (204), after which rotate is 422', async () => {
    const { id, token } = (await create(site.id)).json.data;
    expect((await h.call('POST', `/v1/connectors/${id}/suspend`, owner.token)).json.data.status).toBe('suspended');
    expect((await h.heartbeat(token, site.id)).json.error.code).toBe('auth.token_revoked');
    expect((await h.call('POST', `/v1/connectors/${id}/resume`, owner.token)).json.data.status).toBe('active');
    expect((await h.heartbeat(token, site.id)).status).toBe(200);
    const deleted = await h.call('DELETE', `/v1/connectors/${id}`, owner.token);
    expect({ status: deleted.status, body: deleted.body }).toEqual({ status: 204, body: '' });
    expect((await h.heartbeat(token, site.id)).json.error.code).toBe('auth.token_revoked');
    expect((await h.call('POST', `/v1/connectors/${id}/rotate`, owner.token)).status).toBe(422);
    expect((await h.call('DELETE', `/v1/connectors/${id}`, owner.token)).status).toBe(204);
    const actions = h.t.services.controlDb
      .prepare('SELECT action FROM audit_log WHERE target = ? ORDER BY seq')
      .pluck()
      .all(id);
    expect(actions).toEqual(['connector.created', 'connector.suspended', 'connector.resumed', 'connector.deleted']);
  });

  it("an unknown connector is 404 connector.not_found; another organization's is 403 auth.tenant_mismatch; an editor 403 auth.forbidden; a body is 422", async () => {
    const { id } = (await create(site.id)).json.data;
    expect((await h.call('POST', '/v1/connectors/conn_missing/rotate', owner.token)).json.error.code).toBe(
      'connector.not_found',
    );
    const stranger = h.user('stranger2');
    h.organization(stranger, 'pro');
    expect((await h.call('POST', `/v1/connectors/${id}/rotate`, stranger.token)).json.error.code).toBe(
      'auth.tenant_mismatch',
    );
    const editor = h.user('editor2');
    h.join(org, editor, 'editor');
    expect((await h.call('DELETE', `/v1/connectors/${id}`, editor.token)).json.error.code).toBe('auth.forbidden');
    expect((await h.call('POST', `/v1/connectors/${id}/suspend`, owner.token, { now: true })).status).toBe(422);
    const key = h.apiKey(org, 'organization_admin');
    expect((await h.call('POST', `/v1/connectors/${id}/suspend`, key)).json.data.status).toBe('suspended');
  });
});

describe('authorizeConnector', () => {
  const website = { id: 'web_1', organizationId: 'org_1' };
  const lookups = { connectorWebsite: (id: string) => (id === 'conn_1' ? website : undefined) };
  const member = (role: 'viewer' | 'organization_admin'): Principal => ({
    kind: 'user',
    userId: 'u',
    sessionId: 's',
    memberships: (org) => (org === 'org_1' ? role : undefined),
  });
  const stranger: Principal = { kind: 'user', userId: 'x', sessionId: 's', memberships: () => undefined };

  it("authorizes through the connector's website: 404 connector.not_found for an unknown one or a foreign read, 403 for a foreign mutation or a low role", () => {
    expect(authorizeConnector(member('organization_admin'), 'conn_1', 'organization_admin', 'mutate', lookups)).toEqual(
      { website, role: 'organization_admin' },
    );
    expect(() => authorizeConnector(member('organization_admin'), 'conn_2', 'viewer', 'mutate', lookups)).toThrow(
      expect.objectContaining({ code: 'connector.not_found' }),
    );
    expect(() => authorizeConnector(stranger, 'conn_1', 'viewer', 'read', lookups)).toThrow(
      expect.objectContaining({ code: 'connector.not_found' }),
    );
    expect(() => authorizeConnector(stranger, 'conn_1', 'viewer', 'mutate', lookups)).toThrow(
      expect.objectContaining({ code: 'auth.tenant_mismatch' }),
    );
    expect(() => authorizeConnector(member('viewer'), 'conn_1', 'organization_admin', 'mutate', lookups)).toThrow(
      expect.objectContaining({ code: 'auth.forbidden' }),
    );
    expect(() => authorizeConnector({ kind: 'anonymous' }, 'conn_1', 'viewer', 'read', lookups)).toThrow(
      expect.objectContaining({ code: 'auth.unauthenticated' }),
    );
  });
});

// Rotated-away tokens: a stale token version is 401 auth.token_revoked (SPEC server verification
// step 4), told apart from a wrong secret (401 auth.invalid_signature) by the retired secret hashes
// rotate keeps; deleting the connector or its website removes those hashes.
async function createConnector(websiteId = site.id): Promise<{ id: string; token: string }> {
  const res = await h.call('POST', `/v1/websites/${websiteId}/connectors`, owner.token, {
    connectorType: 'wordpress',
    sourceTypes: ['page'],
  });
  expect(res.status, res.body).toBe(201);
  return res.json.data;
}

async function rotate(id: string): Promise<string> {
  const res = await h.call('POST', `/v1/connectors/${id}/rotate`, owner.token);
  expect(res.status, res.body).toBe(200);
  return res.json.data.token;
}

function retiredRows(connectorId: string): number {
  return h.t.services.controlDb
    .prepare('SELECT COUNT(*) FROM retired_connector_secrets WHERE connector_id = ?')
    .pluck()
    .get(connectorId) as number;
}

const outcome = (res: { status: number; json: { error?: { code: string } } }) =>
  `${res.status} ${res.json.error?.code ?? 'ok'}`;

describe('a rotated-away token', () => {
  it('rotated twice: both old tokens are 401 auth.token_revoked saying a rotation replaced them; the newest works', async () => {
    const first = await createConnector();
    const second = await rotate(first.id);
    const third = await rotate(first.id);
    for (const stale of [first.token, second]) {
      const res = await h.heartbeat(stale, site.id);
      expect(outcome(res)).toBe('401 auth.token_revoked');
      expect(res.json.error.message).toMatch(/replaced by a rotation.*newest token/);
    }
    expect(outcome(await h.heartbeat(third, site.id))).toBe('200 ok');
  });

  it('a wrong secret for a real connector stays 401 auth.invalid_signature', async () => {
    const { id } = await createConnector();
    await rotate(id);
    const res = await h.heartbeat(`${id}.${randomBytes(32).toString('base64url')}`, site.id);
    expect(outcome(res)).toBe('401 auth.invalid_signature');
    expect(res.json.error.message).toMatch(/current secret/);
  });

  it('an unknown connector stays 401 auth.token_revoked, without the rotation wording', async () => {
    const res = await h.heartbeat(`conn_01JD2Q7Z3K4M5N6P7Q8R9S0T1V.${randomBytes(32).toString('base64url')}`, site.id);
    expect(outcome(res)).toBe('401 auth.token_revoked');
    expect(res.json.error.message).not.toMatch(/rotation/);
  });

  it(`only the ${RETIRED_SECRETS_KEPT} newest retired versions are kept: an older token reads as a wrong secret`, async () => {
    const first = await createConnector();
    const tokens = [first.token];
    for (let i = 0; i <= RETIRED_SECRETS_KEPT; i += 1) tokens.push(await rotate(first.id));
    expect(retiredRows(first.id)).toBe(RETIRED_SECRETS_KEPT);
    expect(outcome(await h.heartbeat(tokens[0]!, site.id))).toBe('401 auth.invalid_signature');
    expect(outcome(await h.heartbeat(tokens[1]!, site.id))).toBe('401 auth.token_revoked');
    expect(outcome(await h.heartbeat(tokens.at(-2)!, site.id))).toBe('401 auth.token_revoked');
    expect(outcome(await h.heartbeat(tokens.at(-1)!, site.id))).toBe('200 ok');
  });
});

describe('the retired hashes go with the connector', () => {
  it('deleting the connector removes them: its current token is auth.token_revoked, the old one matches nothing kept', async () => {
    const { id, token } = await createConnector();
    const current = await rotate(id);
    expect(retiredRows(id)).toBe(1);
    expect((await h.call('DELETE', `/v1/connectors/${id}`, owner.token)).status).toBe(204);
    expect(retiredRows(id)).toBe(0);
    expect(outcome(await h.heartbeat(current, site.id))).toBe('401 auth.token_revoked');
    // Its hash is gone: the old secret is now a wrong secret of a connector whose row stays.
    expect(outcome(await h.heartbeat(token, site.id))).toBe('401 auth.invalid_signature');
  });

  it('deleting the website removes them', async () => {
    const doomed = await h.website(org, owner.token, 'doomed-stale.example.com');
    await h.verifyByDns(doomed.id, doomed.domain, owner.token);
    const { id } = await createConnector(doomed.id);
    await rotate(id);
    expect(retiredRows(id)).toBe(1);
    const res = await h.call('DELETE', `/v1/websites/${doomed.id}`, owner.token, { confirm: doomed.domain });
    expect(res.status, res.body).toBe(204);
    expect(retiredRows(id)).toBe(0);
  });
});
