import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, collectPages, createApiClient, isApiError, type ApiClient } from '../../../src/sdk/api/index.js';
import { loadFixture } from '../../../src/compiler/index.js';
import { ConnectorWithTokenSchema } from '../../../src/control/connectors/schemas.js';
import { buildGraphFromItems } from '../../../src/ingest/graph/build-from-items.js';
import { JobSchema } from '../../../src/control/websites/job-schemas.js';
import { contentIngestJob } from '../../../src/ingest/graph/content-ingest-job.js';
import { acquirePublishLock } from '../../../src/output/publish/lock.js';
import {
  PublishedVersionSchema,
  PublishResultSchema,
  RollbackResultSchema,
} from '../../../src/output/publish/schemas.js';
import { graphDbPath } from '../../../src/platform/storage/data-dir.js';
import { createApiKey } from '../../../src/control/records/api-keys.js';
import { loadWebsiteInfo } from '../../../src/control/records/load-website.js';
import { WebsiteSchema } from '../../../src/control/websites/schemas.js';
import { buildTestApp, fakeClock, seedWebsite, type SeededWebsite, type TestApp } from '../../helpers/app.js';
import { SHOP, SHOP_DOMAIN } from '../../output/publish/support.js';

// The typed client (@nodectl/cli/api) over real loopback HTTP against the app in process (the publish
// worker runs from dist/: `npm run build` first). Each answer is also checked against the OpenAPI
// document by the app's hook; here the client's values are parsed by the schemas its types come from.
const clock = fakeClock();
let t: TestApp & { url?: string };
let site: SeededWebsite;
let admin: ApiClient;
let viewer: ApiClient;

beforeAll(async () => {
  t = await buildTestApp({
    clock,
    listen: true,
    principalResolvers: {
      resolveUserPrincipal: (token) =>
        token === 'user-session'
          ? {
              kind: 'user',
              userId: 'usr_client',
              sessionId: 'ses_client',
              memberships: (id) => (id === site.organizationId ? 'organization_admin' : undefined),
            }
          : undefined,
    },
  });
  site = await seedWebsite(t.services, SHOP_DOMAIN);
  admin = createApiClient({
    url: t.url!,
    credential: {
      apiKey: createApiKey(t.services.controlDb, { organizationId: site.organizationId, role: 'organization_admin' })
        .key,
    },
  });
  viewer = createApiClient({
    url: t.url!,
    credential: {
      apiKey: createApiKey(t.services.controlDb, { organizationId: site.organizationId, role: 'viewer' }).key,
    },
  });
  const info = loadWebsiteInfo(t.services.controlDb, site.websiteId)!;
  buildGraphFromItems(loadFixture(SHOP).items, info, {
    receivedAt: '2026-03-02T09:00:00Z',
    file: graphDbPath(t.services.layout, site.websiteId),
  }).close();
}, 60_000);
afterAll(async () => t?.close());

/** The ApiError a call rejects with (the test fails when it resolves). */
async function failureOf(call: Promise<unknown>): Promise<ApiError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isApiError(error), String(error)).toBe(true);
  return error as ApiError;
}

describe('the typed client of the management API', () => {
  it('publishes, lists versions and rolls back; every answer is the data its route schema describes', async () => {
    const first = await admin.publish.publish(site.websiteId);
    expect(PublishResultSchema.parse(first)).toEqual(first);
    expect(first.recordCount).toBeGreaterThan(0);
    clock.advance(1_000);
    const second = await admin.publish.publish(site.websiteId, { force: true });
    expect(second.previousVersion).toBe(first.versionUlid);
    const versions = await collectPages((cursor) => viewer.publish.versions(site.websiteId, { limit: 1, cursor }));
    expect(versions.map((v) => PublishedVersionSchema.parse(v).node_version)).toEqual([
      second.versionUlid,
      first.versionUlid,
    ]);
    const rolled = await admin.publish.rollback(site.websiteId, { version: first.versionUlid });
    expect(RollbackResultSchema.parse(rolled)).toMatchObject({
      versionUlid: first.versionUlid,
      previousVersion: second.versionUlid,
    });
    expect((await viewer.publish.versions(site.websiteId)).items.find((v) => v.live)?.node_version).toBe(
      first.versionUlid,
    );
  });

  it('reads websites, jobs and connectors; a 204 answer resolves to undefined', async () => {
    expect(WebsiteSchema.parse(await viewer.websites.get(site.websiteId)).domain).toBe(SHOP_DOMAIN);
    const orgs = await viewer.organizations.list();
    expect(orgs.items.map((o) => o.id)).toEqual([site.organizationId]);
    const job = t.services.jobs.enqueue(contentIngestJob, { website_id: site.websiteId, raw_content_ids: [] });
    expect(JobSchema.parse(await viewer.jobs.get(site.websiteId, job.id))).toMatchObject({
      id: job.id,
      state: 'queued',
    });
    expect(
      (await viewer.jobs.list(site.websiteId, { state: 'queued', kind: 'content.ingest' })).items.map((j) => j.id),
    ).toEqual([job.id]);
    const connector = ConnectorWithTokenSchema.parse(
      await admin.connectors.create(site.websiteId, { connectorType: 'files', sourceTypes: ['page'] }),
    );
    expect(connector.token).toMatch(new RegExp(`^${connector.id}\\.`));
    expect(await admin.connectors.delete(connector.id)).toBeUndefined();
    expect((await viewer.connectors.list(site.websiteId)).items.find((c) => c.id === connector.id)?.status).toBe(
      'revoked',
    );
  });

  it('sends a user access token as the bearer credential', async () => {
    const asUser = createApiClient({ url: t.url!, credential: { accessToken: 'user-session' } });
    expect((await asUser.websites.get(site.websiteId)).id).toBe(site.websiteId);
    const stranger = await failureOf(
      createApiClient({ url: t.url!, credential: { accessToken: 'not-a-session' } }).websites.get(site.websiteId),
    );
    expect([stranger.status, stranger.code]).toEqual([401, 'auth.unauthenticated']);
  });

  it("an error answer is an ApiError with the envelope's code, message, details, retryable flag, the status and the request id", async () => {
    const invalid = await failureOf(admin.publish.rollback(site.websiteId, { version: 'latest' }));
    expect(invalid).toBeInstanceOf(ApiError);
    expect(invalid).toMatchObject({
      name: 'ApiError',
      code: 'validation.failed',
      status: 422,
      retryable: false,
      details: { fields: [{ path: 'version', message: expect.stringContaining('node_version') }] },
    });
    expect(invalid.message).toBe('The body of POST /v1/websites/:id/rollback is not valid; see details.fields.');
    expect(invalid.requestId).toMatch(/^\w+$/);
    const forbidden = await failureOf(viewer.publish.publish(site.websiteId));
    expect([forbidden.status, forbidden.code]).toEqual([403, 'auth.forbidden']);
    const missing = await failureOf(viewer.jobs.get(site.websiteId, 'job_nope'));
    expect([missing.status, missing.code]).toEqual([404, 'job.not_found']);
    const lock = acquirePublishLock(t.services.controlDb, site.websiteId, { now: clock.now });
    try {
      const conflict = await failureOf(admin.publish.publish(site.websiteId));
      expect(conflict).toMatchObject({ status: 409, code: 'publish.conflict', retryable: true });
      expect(conflict.retryAfterSeconds).toBeGreaterThan(0);
    } finally {
      lock.release();
    }
  });

  it('a daemon that does not answer is network.error (status 0); an answer without the envelope is response.invalid', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const refused = await failureOf(createApiClient({ url: `http://127.0.0.1:${port}` }).websites.get(site.websiteId));
    // Nothing was sent, so the default policy tried three times (test/sdk/api/client-retry.app.test.ts has the rules).
    expect(refused).toMatchObject({
      code: 'network.error',
      status: 0,
      retryable: true,
      requestId: undefined,
      attempts: 3,
    });
    expect(refused.message).toBe(`cannot reach http://127.0.0.1:${port}: ECONNREFUSED`);

    // Another service: a page for reads, an empty 204 for deletes (a daemon's 204 carries X-Api-Version).
    const other: Server = createServer((req, res) =>
      req.method === 'DELETE'
        ? res.writeHead(204).end()
        : res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>hello</h1>'),
    );
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      const elsewhere = createApiClient({ url: `http://127.0.0.1:${(other.address() as AddressInfo).port}` });
      expect(await failureOf(elsewhere.websites.get(site.websiteId))).toMatchObject({
        code: 'response.invalid',
        status: 200,
      });
      expect(await failureOf(elsewhere.connectors.delete('conn_x'))).toMatchObject({
        code: 'response.invalid',
        status: 204,
      });
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  });
});
