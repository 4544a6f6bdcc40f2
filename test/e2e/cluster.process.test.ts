import { randomUUID } from 'node:crypto';
import { cpSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createConnector } from '../../src/control/connectors/connectors.js';
import { createApiKey } from '../../src/control/records/api-keys.js';
import { createOrganization } from '../../src/control/records/organizations.js';
import { createUser } from '../../src/control/records/users.js';
import { createWebsite } from '../../src/control/records/websites.js';
import { createS3Target } from '../../src/output/publish/targets/s3.js';
import type { PublishTarget } from '../../src/output/publish/targets/types.js';
import type { BatchResult, IngestItemInput } from '../../src/sdk/client/index.js';
import { computeItemChecksum, IngestClient, IngestError } from '../../src/sdk/client/index.js';
import { openControlDb } from '../../src/platform/storage/control.js';
import { dataDirLayout, readMasterKey } from '../../src/platform/storage/data-dir.js';
import type { Db } from '../../src/platform/storage/sqlite.js';
import { callDaemon, freePort, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { makeTempDir } from '../helpers/paths.js';
import { createTestDatabase } from '../helpers/postgres.js';
import { hashOnce } from '../helpers/seed.js';
import { startLocalS3, type LocalS3 } from '../output/publish/s3-server.js';

/**
 * Three `nodectl serve` on one PostgreSQL control store and one S3-protocol bucket (issue 41,
 * docs/scaling.md), each with its own data directory: connectors push to all three, a user signs
 * in on one and reads on another, a rate limit holds across them, and the daemon writing the
 * website's graph is killed (SIGKILL) while the pushes go on. Every item a daemon acknowledged
 * reaches the published node, once.
 */
const DOMAIN = 'cluster.example';
const EMAIL = 'ops@cluster.example';
const PASSWORD = 'a long cluster password';
/** Short leases, so that a dead daemon's website and jobs move within seconds. */
const LEASE_ENV = { NODECTL_WEBSITE_LEASE_SECONDS: '2', NODECTL_JOB_LEASE_SECONDS: '3' };

let s3: LocalS3;
let target: PublishTarget;
let controlStore: string;
let control: Db;
const daemons: TestDaemon[] = [];
const dirs = [makeTempDir('nodectl-cluster-a-'), makeTempDir('nodectl-cluster-b-'), makeTempDir('nodectl-cluster-c-')];
let websiteId: string;
let connectorToken: string;
let apiKey: string;
let ports: number[];
let env: (port: number) => Record<string, string>;

beforeAll(async () => {
  [controlStore, s3] = await Promise.all([createTestDatabase(), startLocalS3()]);
  ports = [await freePort(), await freePort(), await freePort()];
  env = (port: number) => ({
    ...s3.env,
    ...LEASE_ENV,
    NODECTL_CONTROL_STORE: controlStore,
    NODECTL_PUBLISH_TARGET: 's3',
    // One public address, as behind a load balancer: the access tokens' issuer.
    NODECTL_PUBLIC_BASE_URL: 'http://127.0.0.1:8080',
    NODECTL_ADVERTISE_URL: `http://127.0.0.1:${port}`,
    NODECTL_TRUST_PROXY: '127.0.0.1',
    NODECTL_INGEST_AUTH_FAILURES_PER_MINUTE: '5',
    // The take-overs and snapshots are logged at info: printed when a test fails (afterEach).
    NODECTL_LOG_LEVEL: 'info',
  });
  // The first daemon makes keys/; the others get the same folder, as an operator gives every daemon.
  daemons.push(await startTestDaemon({ env: env(ports[0]!), port: ports[0]!, dataDir: dirs[0]!.dir }));
  for (const i of [1, 2]) cpSync(join(dirs[0]!.dir, 'keys'), join(dirs[i]!.dir, 'keys'), { recursive: true });
  daemons.push(
    ...(await Promise.all(
      [1, 2].map((i) => startTestDaemon({ env: env(ports[i]!), port: ports[i]!, dataDir: dirs[i]!.dir })),
    )),
  );
  control = openControlDb(dataDirLayout(dirs[0]!.dir), controlStore);
  await createUser(control, { email: EMAIL, password: PASSWORD }, Date.now(), hashOnce);
  const org = createOrganization(control, { name: 'Cluster', ownerEmail: EMAIL, plan: 'pro' });
  websiteId = createWebsite(control, {
    organizationId: org.id,
    domain: DOMAIN,
    name: 'Cluster',
    verifiedMethod: 'dns_txt',
  }).id;
  const masterKey = readMasterKey(dataDirLayout(dirs[0]!.dir));
  connectorToken = createConnector(control, masterKey, {
    websiteId,
    connectorType: 'test',
    sourceTypes: ['page'],
  }).token;
  apiKey = createApiKey(control, { organizationId: org.id, role: 'editor' }).key;
  const settings = s3.env;
  target = await createS3Target({
    bucket: settings.NODECTL_S3_BUCKET!,
    endpoint: settings.NODECTL_S3_ENDPOINT!,
    region: settings.NODECTL_S3_REGION!,
    forcePathStyle: true,
    accessKeyId: settings.NODECTL_S3_ACCESS_KEY_ID!,
    secretAccessKey: settings.NODECTL_S3_SECRET_ACCESS_KEY!,
  });
}, 180_000);

afterEach((context) => {
  if (context.task.result?.state !== 'fail') return;
  for (const [i, daemon] of daemons.entries())
    console.error(
      `daemon ${i} (pid ${daemon.process.pid}) wrote:\n${daemon.output().split('\n').slice(-60).join('\n')}`,
    );
});

afterAll(async () => {
  await Promise.all(daemons.map((d) => d.stop()));
  control?.close();
  await target?.close();
  await s3?.stop();
  for (const dir of dirs) dir.cleanup();
});

function client(daemon: TestDaemon, token = connectorToken, maxAttempts = 12): IngestClient {
  // Retries (the same Idempotency-Key) carry a push across a daemon's death: its website moves within a lease.
  return new IngestClient({
    baseUrl: daemon.address,
    token,
    websiteId,
    siteDomain: DOMAIN,
    retry: { maxAttempts, baseMs: 200, capMs: 2_000 },
  });
}

function page(n: number): IngestItemInput {
  const slug = `note-${String(n).padStart(3, '0')}`;
  const item = {
    type: 'page',
    id: slug,
    url: `https://${DOMAIN}/notes/${slug}`,
    title: `Field note ${n}`,
    html: `<!doctype html><html lang="en"><head><title>Field note ${n}</title></head><body><main><h1>Field note ${n}</h1><p>Observation number ${n} of the cluster: a heron was seen at the ${n}th pond, standing still for ${n} minutes before it caught a fish.</p></main></body></html>`,
  };
  return { ...item, checksum: computeItemChecksum(item) } as IngestItemInput;
}

/** Polls the control store until `check` holds: the state of three other processes, not an event of this one. */
async function eventually<T>(
  read: () => T,
  check: (value: T) => boolean,
  what: string,
  timeoutMs = 60_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (check(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last seen ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const leaseHolder = () =>
  (
    control
      .prepare('SELECT owner FROM website_leases WHERE website_id = ? AND expires_at > ?')
      .get(websiteId, Date.now()) as { owner: string } | undefined
  )?.owner;

describe('three daemons on PostgreSQL and S3', () => {
  it('a user registered through the store signs in on one daemon and reads on another', async () => {
    const login = await callDaemon(daemons[1]!, 'POST', '/v1/auth/login', { email: EMAIL, password: PASSWORD });
    expect(login.status, JSON.stringify(login.json)).toBe(200);
    const token: string = login.json.data.accessToken;
    const website = await callDaemon(daemons[2]!, 'GET', `/v1/websites/${websiteId}`, undefined, token);
    expect(website.status, JSON.stringify(website.json)).toBe(200);
    expect(website.json.data).toMatchObject({ id: websiteId, domain: DOMAIN });
  });

  it('a rate limit holds across daemons: failures spent on one are counted by the next', async () => {
    // The limit counts in fixed windows of a minute of the wall clock: start in a fresh one, so that
    // the failures on one daemon and the request to the next fall in the same window.
    const leftInWindow = 60_000 - (Date.now() % 60_000);
    if (leftInWindow < 15_000) await new Promise((resolve) => setTimeout(resolve, leftInWindow));
    const forged = `${connectorToken.split('.')[0]}.${'x'.repeat(43)}`;
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      try {
        await client(daemons[0]!, forged).heartbeat({ connector_state: 'idle' }, {});
        statuses.push(200);
      } catch (error) {
        statuses.push((error as { status: number }).status);
      }
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401]);
    // The first daemon writes its counts to the store once a second.
    await eventually(
      () =>
        (
          control
            .prepare(`SELECT MAX(count) AS n FROM rate_limits WHERE bucket LIKE 'ingest.auth_failures%'`)
            .get() as { n: number | null }
        ).n ?? 0,
      (n) => n >= 5,
      'the auth failures to reach the control store',
    );
    const next = await fetch(`${daemons[2]!.address}/v1/ingest/heartbeat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${forged}` },
      body: JSON.stringify({ website_id: websiteId, connector_state: 'idle' }),
    });
    expect(next.status).toBe(429);
  });

  it('kill -9 of the daemon writing the graph mid-ingest: every acknowledged item is published once', async () => {
    const items = Array.from({ length: 90 }, (_, i) => page(i + 1));
    const batches = Array.from({ length: 18 }, (_, i) => items.slice(i * 5, i * 5 + 5));
    // The first batch makes a daemon take the website; the killed one is whichever that is.
    const first = await client(daemons[0]!).sendBatch(batches[0]!);
    expect(first.accepted, JSON.stringify(first.results)).toBe(5);
    const owner = await eventually(leaseHolder, (o) => o !== undefined, 'a lease on the website');
    const victim = daemons.findIndex((d) => owner!.includes(`:${d.process.pid}:`));
    expect(victim, `the lease holder ${owner} is one of the daemons`).toBeGreaterThanOrEqual(0);
    const survivors = daemons.filter((_, i) => i !== victim);

    const acknowledged: BatchResult[] = [first];
    // Round-robin over all three, the victim too. A batch it cannot answer (it died, or was frozen
    // and then killed) goes to another daemon with the same Idempotency-Key, as a load balancer
    // would send the client's retry.
    const push = async (entry: TestDaemon, batch: IngestItemInput[]) => {
      const idempotencyKey = randomUUID();
      if (entry === daemons[victim]) {
        try {
          return await client(entry, connectorToken, 1).sendBatch(batch, { idempotencyKey });
        } catch (error) {
          if (!(error instanceof IngestError) || !(error.status === 0 || error.retryable)) throw error;
          entry = survivors[0]!;
        }
      }
      return client(entry).sendBatch(batch, { idempotencyKey });
    };
    const pushes = batches.slice(1).map(async (batch, i) => acknowledged.push(await push(daemons[i % 3]!, batch)));
    // Killed while the pushes are in flight: frozen first, so that the jobs it was running are known exactly.
    await eventually(
      () => acknowledged.length,
      (n) => n >= 4,
      'a few batches acknowledged',
    );
    daemons[victim]!.process.kill('SIGSTOP');
    const runningAtDeath = (
      control.prepare(`SELECT id FROM jobs WHERE state = 'running'`).all() as Array<{ id: string }>
    ).map((r) => r.id);
    daemons[victim]!.process.kill('SIGKILL');
    await Promise.all(pushes);
    await daemons[victim]!.stop();

    const accepted = acknowledged.flatMap((r) => r.results.filter((x) => x.status !== 'error').map((x) => x.id));
    expect(
      new Set(accepted).size,
      `every item was acknowledged: ${JSON.stringify(acknowledged.flatMap((r) => r.results.filter((x) => x.status === 'error')))}`,
    ).toBe(90);

    // Another daemon took the website over and ran every content.ingest job.
    await eventually(
      () =>
        control
          .prepare(`SELECT state, COUNT(*) AS n FROM jobs WHERE kind = 'content.ingest' GROUP BY state ORDER BY state`)
          .all() as Array<{ state: string; n: number }>,
      (rows) => rows.length === 1 && rows[0]!.state === 'succeeded',
      'every content.ingest job to succeed',
      90_000,
    );
    expect(leaseHolder()).not.toBe(owner);
    // Only a job the dead daemon was running ran again; every other one ran once.
    const ranAgain = (control.prepare(`SELECT id FROM jobs WHERE attempts > 1`).all() as Array<{ id: string }>).map(
      (r) => r.id,
    );
    expect(runningAtDeath).toEqual(expect.arrayContaining(ranAgain));

    const published = await callDaemon(survivors[0]!, 'POST', `/v1/websites/${websiteId}/publish`, {}, apiKey);
    expect(published.status, JSON.stringify(published.json)).toBe(200);
    const sources = (await target.get(`${DOMAIN}/sources.jsonl`))!.toString('utf8').trim().split('\n');
    const urls = sources.map((line) => JSON.parse(line).url as string).sort();
    expect(urls).toEqual(items.map((item) => item.url).sort());
  }, 240_000);

  it('a writer stopped with SIGTERM snapshots and gives its websites up; the next writer has every item', async () => {
    const owner = await eventually(leaseHolder, (o) => o !== undefined, 'a lease on the website');
    const alive = daemons.filter((d) => d.process.exitCode === null && d.process.signalCode === null);
    const writer = alive.find((d) => owner!.includes(`:${d.process.pid}:`))!;
    const other = alive.find((d) => d !== writer)!;
    expect(await writer.stop('SIGTERM')).toBe(0);
    // Released, not left to lapse: nobody holds the website now.
    expect(control.prepare('SELECT expires_at FROM website_leases WHERE website_id = ?').get(websiteId)).toEqual({
      expires_at: 0,
    });
    const more = await client(other).sendBatch([page(91)]);
    expect(more.accepted).toBe(1);
    await eventually(
      () =>
        control
          .prepare(`SELECT COUNT(*) AS n FROM jobs WHERE kind = 'content.ingest' AND state <> 'succeeded'`)
          .get() as { n: number },
      (row) => Number(row.n) === 0,
      'the last content.ingest job to succeed',
    );
    const published = await callDaemon(other, 'POST', `/v1/websites/${websiteId}/publish`, {}, apiKey);
    expect(published.status, JSON.stringify(published.json)).toBe(200);
    const sources = (await target.get(`${DOMAIN}/sources.jsonl`))!.toString('utf8').trim().split('\n');
    expect(sources).toHaveLength(91);
  }, 120_000);

  it('the website deleted through another daemon leaves the writer’s disk and the bucket', async () => {
    const owner = await eventually(leaseHolder, (o) => o !== undefined, 'a lease on the website');
    const writer = daemons.find((d) => d.process.exitCode === null && owner!.includes(`:${d.process.pid}:`))!;
    // The daemon stopped in the test before starts again, on its own data directory: it is not the writer.
    const stopped = daemons.findIndex((d) => d.process.exitCode === 0);
    const through = await startTestDaemon({
      env: env(ports[stopped]!),
      port: ports[stopped]!,
      dataDir: dirs[stopped]!.dir,
    });
    daemons[stopped] = through;
    const graphFile = join(writer.dataDir, 'graphs', `${websiteId}.sqlite`);
    expect(existsSync(graphFile)).toBe(true);
    expect(await target.list(`_graphs/${websiteId}/`)).not.toEqual([]);
    const login = await callDaemon(through, 'POST', '/v1/auth/login', { email: EMAIL, password: PASSWORD });
    const deleted = await callDaemon(
      through,
      'DELETE',
      `/v1/websites/${websiteId}`,
      { confirm: DOMAIN },
      login.json.data.accessToken,
    );
    expect(deleted.status, JSON.stringify(deleted.json)).toBe(204);
    expect(await target.list(`_graphs/${websiteId}/`)).toEqual([]);
    // The writer finds its lease gone at its next round and removes the graph.
    await eventually(
      () => existsSync(graphFile),
      (exists) => !exists,
      "the deleted website's graph to leave the writer's data directory",
    );
  }, 60_000);
});
