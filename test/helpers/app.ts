import { checkAnswersAgainstDocument } from './api-contract.js';
import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { resolveConfig } from '../../src/platform/config/config.js';
import type { SettingName } from '../../src/platform/config/settings.js';
import { signRequest } from '../../src/platform/contract/signing.js';
import { createConnector } from '../../src/control/connectors/connectors.js';
import { type AppServices } from '../../src/platform/app/services.js';
import { createServices } from '../../src/daemon/create-services.js';
import type { PrincipalResolvers } from '../../src/control/access/principal.js';
import { buildApp } from '../../src/daemon/app.js';
import { readMasterKey } from '../../src/platform/storage/data-dir.js';
import { createApiKey } from '../../src/control/records/api-keys.js';
import { createOrganization } from '../../src/control/records/organizations.js';
import { createUser } from '../../src/control/records/users.js';
import { createWebsite } from '../../src/control/records/websites.js';
import { makeTempDir } from './paths.js';
import { hashOnce, TEST_PASSWORD_COST } from './seed.js';
import { createTestDatabase } from './postgres.js';

/** The daemon's app built in this process over a fresh data directory; requests go through inject(). */
export interface TestApp {
  app: FastifyInstance;
  services: AppServices;
  dataDir: string;
  /** Closes the app and its databases and removes the data directory. */
  close(): Promise<void>;
}

/** A clock tests move by hand: the app's services read it (signatures, job run times, record times). */
export interface FakeClock {
  now(): number;
  advance(ms: number): void;
  set(ms: number): void;
}

/** A fake clock starting at `startMs` (default 2026-03-02T10:00:00Z). */
export function fakeClock(startMs = Date.parse('2026-03-02T10:00:00Z')): FakeClock {
  let ms = startMs;
  return {
    now: () => ms,
    advance: (by) => void (ms += by),
    set: (to) => void (ms = to),
  };
}

export interface BuildTestAppOptions {
  /** Settings given as flags would be (e.g. { bodyTimeoutMs: 300 }); the environment is ignored. */
  settings?: Partial<Record<SettingName, unknown>>;
  /** Listen on an ephemeral loopback port too (for raw-socket tests); default false. */
  listen?: boolean;
  /** The services' clock; default the real one. */
  clock?: FakeClock;
  /** Extra principal resolvers (e.g. fake user sessions); default: API keys only. */
  principalResolvers?: Partial<PrincipalResolvers>;
  /** An existing data directory (kept at close), e.g. a copy of another app's; default a fresh one. */
  dataDir?: string;
}

export async function buildTestApp(options: BuildTestAppOptions = {}): Promise<TestApp & { url?: string }> {
  const temp = options.dataDir ? { dir: options.dataDir, cleanup: () => {} } : makeTempDir('nodectl-app-');
  // The conformance run (vitest project app-postgres): every app on a fresh PostgreSQL database.
  const controlStore =
    inject('controlStoreUnderTest') === 'postgres' && options.settings?.controlStore === undefined
      ? { controlStore: await createTestDatabase() }
      : {};
  const config = resolveConfig({ flags: { ...options.settings, ...controlStore, dataDir: temp.dir }, env: {} });
  const services = createServices(config, { now: options.clock?.now, passwordCost: TEST_PASSWORD_COST });
  const app = await buildApp(services, { principalResolvers: options.principalResolvers });
  checkAnswersAgainstDocument(app);
  let url: string | undefined;
  if (options.listen) url = await app.listen({ host: '127.0.0.1', port: 0 });
  else await app.ready();
  return {
    app,
    services,
    dataDir: temp.dir,
    url,
    async close() {
      await app.close();
      services.close();
      await services.postgres?.close(); // after the rate-limit flush close() started
      temp.cleanup();
    },
  };
}

export interface SeededWebsite {
  organizationId: string;
  websiteId: string;
  domain: string;
  /** An editor API key of the organization. */
  apiKey: string;
  /** A connector token for page and post items, and its connector's id. */
  connectorToken: string;
  connectorId: string;
}

/** A user, an organization, a verified website, an API key and a connector, written straight to the data directory. */
export async function seedWebsite(services: AppServices, domain = 'example.com'): Promise<SeededWebsite> {
  const db = services.controlDb;
  const now = services.now();
  const email = `owner-${randomUUID().slice(0, 8)}@example.com`;
  await createUser(db, { email, password: 'correct-horse-battery' }, now, hashOnce);
  const organization = createOrganization(db, { name: 'Test Org', ownerEmail: email, plan: 'pro' }, now);
  const website = createWebsite(
    db,
    { organizationId: organization.id, domain, name: 'Example', verifiedMethod: 'dns_txt' },
    now,
  );
  const apiKey = createApiKey(db, { organizationId: organization.id, role: 'editor' }, now).key;
  const connector = createConnector(
    db,
    readMasterKey(services.layout),
    { websiteId: website.id, connectorType: 'test', sourceTypes: ['page', 'post'] },
    now,
  );
  return {
    organizationId: organization.id,
    websiteId: website.id,
    domain,
    apiKey,
    connectorToken: connector.token,
    connectorId: connector.id,
  };
}

export interface InjectAnswer {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
  /** The body parsed as JSON (undefined when it is not JSON). */
  json: any;
}

function answerOf(res: { statusCode: number; headers: InjectAnswer['headers']; body: string }): InjectAnswer {
  let json: unknown;
  try {
    json = JSON.parse(res.body);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, headers: res.headers, body: res.body, json };
}

export interface SignedInjectOptions {
  token: string;
  websiteId: string;
  /** The exact body bytes; default JSON of `body`. */
  raw?: string | Buffer;
  body?: unknown;
  /** Default a fresh UUID; null sends none. */
  idempotencyKey?: string | null;
  /** The signing time, ms since epoch; default now (pass the app's fake clock). */
  nowMs?: number;
  headers?: Record<string, string>;
}

/** Signs and injects one ingest request as a connector would. */
export async function injectSigned(app: FastifyInstance, path: string, o: SignedInjectOptions): Promise<InjectAnswer> {
  const raw = o.raw ?? JSON.stringify(o.body);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    ...signRequest({
      token: o.token,
      websiteId: o.websiteId,
      path,
      body: raw,
      timestamp: Math.floor((o.nowMs ?? Date.now()) / 1000),
      nonce: randomUUID(),
    }),
    ...o.headers,
  };
  if (o.idempotencyKey !== null) headers['idempotency-key'] = o.idempotencyKey ?? randomUUID();
  return answerOf(await app.inject({ method: 'POST', url: path, headers, payload: raw }));
}

/** Injects one request and parses the answer. */
export async function injectJson(
  app: FastifyInstance,
  request: Parameters<FastifyInstance['inject']>[0] & object,
): Promise<InjectAnswer> {
  return answerOf(await app.inject(request as never));
}
