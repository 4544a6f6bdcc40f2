import { randomUUID } from 'node:crypto';
import type { UserPrincipal } from '../../../src/control/access/principal.js';
import type { SettingName } from '../../../src/platform/config/settings.js';
import { JOBS } from '../../../src/daemon/job-definitions.js';
import { JobWorker, laneConcurrency } from '../../../src/platform/job-runtime/job-worker.js';
import { createApiKey } from '../../../src/control/records/api-keys.js';
import { memberRole } from '../../../src/control/records/member-rows.js';
import type { Role } from '../../../src/control/records/record-types.js';
import {
  buildTestApp,
  fakeClock,
  injectJson,
  injectSigned,
  type FakeClock,
  type InjectAnswer,
  type TestApp,
} from '../../helpers/app.js';
import { startLoopbackDns, type LoopbackDns } from '../../platform/net/loopback-servers.js';

/**
 * The daemon's app in process (inject()) on a fake clock, with a real DNS server on loopback as
 * its resolver and private addresses allowed (the HTTP proofs are served on loopback). Callers
 * are users with real membership rows (a fake session token per user) or API keys.
 */
export interface Harness {
  t: TestApp;
  dns: LoopbackDns;
  clock: FakeClock;
  /** A user row and its session token. */
  user(label?: string): { id: string; token: string };
  /** An organization whose owner is `owner`, on `plan`. */
  organization(owner: { id: string }, plan?: 'free' | 'pro' | 'business'): string;
  join(organizationId: string, user: { id: string }, role: Role): void;
  apiKey(organizationId: string, role: 'viewer' | 'editor' | 'organization_admin'): string;
  call(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    token: string | undefined,
    body?: unknown,
  ): Promise<InjectAnswer>;
  /** A website made over HTTP by `token` (organization_admin of `organizationId`). */
  website(organizationId: string, token: string, domain: string): Promise<{ id: string; domain: string }>;
  /** Places a TXT proof and verifies the website's domain by dns_txt over HTTP. */
  verifyByDns(websiteId: string, domain: string, token: string): Promise<void>;
  /** Sends a signed heartbeat with a connector token; `extra` joins the body. */
  heartbeat(connectorToken: string, websiteId: string, extra?: Record<string, unknown>): Promise<InjectAnswer>;
  /** Runs every due job until none is due. */
  runJobs(): Promise<number>;
  close(): Promise<void>;
}

export async function startHarness(settings: Partial<Record<SettingName, unknown>> = {}): Promise<Harness> {
  const dns = await startLoopbackDns();
  const clock = fakeClock();
  const sessions = new Map<string, UserPrincipal>();
  const t = await buildTestApp({
    clock,
    settings: { dnsServers: [dns.server], dnsTimeoutMs: 300, fetchAllowPrivateAddresses: true, ...settings },
    principalResolvers: { resolveUserPrincipal: (token) => sessions.get(token) },
  });
  const db = t.services.controlDb;
  const worker = new JobWorker(t.services.jobs, JOBS, t.services, {
    lanes: laneConcurrency(t.services.config.settings),
    pollMs: 10,
  });
  const harness: Harness = {
    t,
    dns,
    clock,
    user(label = 'user') {
      const id = `usr_${label}_${randomUUID().slice(0, 8)}`;
      db.prepare('INSERT INTO users (id, email, created_at) VALUES (?, ?, ?)').run(
        id,
        `${id}@example.com`,
        new Date(clock.now()).toISOString(),
      );
      const token = `session-${id}`;
      sessions.set(token, {
        kind: 'user',
        userId: id,
        sessionId: `ses_${id}`,
        memberships: (organizationId) => memberRole(db, organizationId, id),
      });
      return { id, token };
    },
    organization(owner, plan = 'pro') {
      const id = `org_${randomUUID().slice(0, 8)}`;
      db.prepare('INSERT INTO organizations (id, name, slug, plan, created_at) VALUES (?, ?, ?, ?, ?)').run(
        id,
        `Org ${id}`,
        id,
        plan,
        new Date(clock.now()).toISOString(),
      );
      harness.join(id, owner, 'organization_owner');
      return id;
    },
    join(organizationId, user, role) {
      db.prepare('INSERT INTO members (organization_id, user_id, role, created_at) VALUES (?, ?, ?, ?)').run(
        organizationId,
        user.id,
        role,
        new Date(clock.now()).toISOString(),
      );
    },
    apiKey: (organizationId, role) => createApiKey(db, { organizationId, role }, clock.now()).key,
    call: (method, url, token, body) =>
      injectJson(t.app, {
        method,
        url,
        headers: {
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
      }),
    async website(organizationId, token, domain) {
      const res = await harness.call('POST', `/v1/organizations/${organizationId}/websites`, token, {
        domain,
        name: `Site ${domain}`,
      });
      if (res.status !== 201) throw new Error(`website ${domain}: ${res.status} ${res.body}`);
      return { id: res.json.data.id, domain };
    },
    async verifyByDns(websiteId, domain, token) {
      const challenge = await harness.call('POST', `/v1/websites/${websiteId}/verification/challenge`, token, {
        method: 'dns_txt',
        domain,
      });
      if (challenge.status !== 201) throw new Error(`challenge ${domain}: ${challenge.status} ${challenge.body}`);
      dns.set(`_nodectl-verify.${domain}`, { TXT: [[challenge.json.data.challenge.proof]] });
      const check = await harness.call('POST', `/v1/websites/${websiteId}/verification/check`, token, { domain });
      if (check.json?.data?.state !== 'verified') throw new Error(`check ${domain}: ${check.status} ${check.body}`);
    },
    heartbeat: (connectorToken, websiteId, extra = {}) =>
      injectSigned(t.app, '/v1/ingest/heartbeat', {
        token: connectorToken,
        websiteId,
        nowMs: clock.now(),
        body: { website_id: websiteId, connector_state: 'idle', ...extra },
      }),
    runJobs: () => worker.drain(),
    async close() {
      await worker.stop();
      await t.close();
      await dns.close();
    },
  };
  return harness;
}
