import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RETIRED_SECRETS_KEPT } from '../../../src/control/connectors/index.js';
import { startHarness, type Harness } from './harness.js';

/**
 * Rotated-away connector tokens over HTTP in process: a stale token version is 401
 * auth.token_revoked (SPEC server verification step 4), told apart from a wrong secret (401
 * auth.invalid_signature) by the retired secret hashes rotate keeps; deleting the connector or its
 * website removes those hashes.
 */

let h: Harness;
let owner: { id: string; token: string };
let org: string;
let site: { id: string; domain: string };

beforeAll(async () => {
  h = await startHarness();
  owner = h.user('owner');
  org = h.organization(owner, 'business');
  site = await h.website(org, owner.token, 'stale.example.com');
  await h.verifyByDns(site.id, site.domain, owner.token);
}, 60_000);
afterAll(async () => h?.close());

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
