import { connect } from 'node:net';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, injectJson, type TestApp } from '../helpers/app.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { runNodectl } from '../helpers/cli.js';
import { makeTempDir, PROJECT_ROOT } from '../helpers/paths.js';
import { seedApiKey, seedDataDir, seedGraph } from '../helpers/seed.js';

async function getJson(url: string, init: Parameters<typeof request>[1] = {}) {
  const res = await request(url, init);
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, text, body: text ? JSON.parse(text) : undefined };
}

/** The daemon's JSON log lines that hold `message`, parsed. */
function logLines(daemon: TestDaemon, message: string): Array<Record<string, any>> {
  return daemon
    .output()
    .split('\n')
    .filter((line) => line.includes(message))
    .map((line) => JSON.parse(line));
}

describe('the daemon core (in process through inject())', () => {
  let t: TestApp & { url?: string };
  beforeAll(async () => {
    // Listening too: a second `nodectl serve` must find the port taken.
    t = await buildTestApp({ listen: true });
  });
  afterAll(async () => {
    await t.close();
  });
  const call = (request: Parameters<typeof injectJson>[1]) => injectJson(t.app, request);
  const postWaitlist = (payload: string, headers: Record<string, string> = {}) =>
    call({ method: 'POST', url: '/v1/waitlist', headers: { 'content-type': 'application/json', ...headers }, payload });

  it('GET / is the banner in the envelope', async () => {
    const res = await call({ method: 'GET', url: '/' });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      ok: true,
      data: {
        name: 'nodectl',
        contractVersion: '0.4.0',
        nodeSchemaVersion: '1.0.0',
        signingScheme: 'svc.connector.hmac.v1',
      },
    });
    expect(res.json.meta.requestId).toBe(res.headers['x-request-id']);
  });

  it('probes answer: /healthz and /readyz', async () => {
    expect((await call({ method: 'GET', url: '/healthz' })).json).toMatchObject({ ok: true, data: { status: 'ok' } });
    expect((await call({ method: 'GET', url: '/readyz' })).json).toMatchObject({ ok: true, data: { status: 'ready' } });
  });

  it('answers with a request id of its own (a ULID), never the X-Request-Id a client sent', async () => {
    const sent = await call({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'trace-abc.123' } });
    expect(sent.headers['x-request-id']).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(sent.json.meta.requestId).toBe(sent.headers['x-request-id']);
    const invalid = await call({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'bad id with spaces' } });
    expect(invalid.headers['x-request-id']).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
  });

  it('unknown routes are 404 route.not_found in the envelope, pointing at the API reference and the OpenAPI document, both of which exist (regression: it once named a reference that did not exist)', async () => {
    const res = await call({ method: 'GET', url: '/v1/nothing-here' });
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ ok: false, error: { code: 'route.not_found', retryable: false } });
    expect(res.json.meta.requestId).toBeTruthy();
    expect(res.json.error.message).toContain('docs/api.md');
    expect(existsSync(join(PROJECT_ROOT, 'docs', 'api.md'))).toBe(true);
    expect(res.json.error.message).toContain('GET /v1/openapi.json');
    const document = await call({ method: 'GET', url: '/v1/openapi.json' });
    expect(document.status).toBe(200);
    expect(document.json.openapi).toBe('3.1.0');
  });

  it('malformed JSON is 422 validation.failed with details.fields', async () => {
    const res = await postWaitlist('{"email":');
    expect(res.status).toBe(422);
    expect(res.json.error.code).toBe('validation.failed');
    expect(res.json.error.details.fields[0].path).toBe('(body)');
  });

  it('a body over 1 MiB is 413 request.body_too_large, and the daemon keeps serving', async () => {
    const res = await postWaitlist(JSON.stringify({ email: 'a@b.co', pad: 'x'.repeat(2 * 1024 * 1024) }));
    expect(res.status).toBe(413);
    expect(res.json.error.code).toBe('request.body_too_large');
    expect((await call({ method: 'GET', url: '/healthz' })).status).toBe(200);
  });

  it('a body that is not JSON is 415', async () => {
    const res = await postWaitlist('hello', { 'content-type': 'text/plain' });
    expect(res.status).toBe(415);
    expect(res.json.error.code).toBe('request.unsupported_media_type');
  });

  it('the waitlist answers 202 for a valid and a duplicate submit, 422 without consent', async () => {
    const body = JSON.stringify({ email: 'Someone@Example.com', source: 'test', consent: true });
    expect((await postWaitlist(body)).status).toBe(202);
    const dup = await postWaitlist(body);
    expect(dup.status).toBe(202);
    expect(dup.json.data).toEqual({ status: 'accepted' });
    const noConsent = await postWaitlist(JSON.stringify({ email: 'x@example.com', consent: false }));
    expect(noConsent.status).toBe(422);
    expect(noConsent.json.error.details.fields[0].path).toBe('consent');
  });

  it('/metrics is Prometheus text that promtool accepts, with request, job and process metrics', async () => {
    await call({ method: 'GET', url: '/healthz' });
    const res = await call({ method: 'GET', url: '/metrics' });
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.body).toMatch(/nodectl_http_requests_total\{method="GET",route="\/healthz",status="200"\} \d+/);
    expect(res.body).toMatch(/nodectl_http_request_duration_seconds_bucket\{/);
    expect(res.body).toMatch(/nodectl_job_queue_depth\{state="queued"\}/);
    expect(res.body).toMatch(/nodectl_process_resident_memory_bytes/);
    const check = await execa('promtool', ['check', 'metrics'], { input: res.body, reject: false });
    expect(check.stderr + check.stdout).toBe('');
    expect(check.exitCode).toBe(0);
  });

  it('a second serve on the same port fails with a clear message', async () => {
    const port = new URL(t.url!).port;
    const run = await runNodectl(['serve', '--port', port], { dataDir: t.dataDir });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(/address is already in use/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('a CLI command run beside the daemon works on the same data directory', async () => {
    const run = await runNodectl(
      ['--json', 'admin', 'user', 'create', '--email', 'beside@example.com', '--password', 'long-enough-pw'],
      { dataDir: t.dataDir },
    );
    expect(run.exitCode).toBe(0);
    expect((await call({ method: 'GET', url: '/readyz' })).status).toBe(200);
  });
});

describe('daemon lifecycle', () => {
  it('SIGTERM during a request lets it finish, then exits 0', async () => {
    // At info the daemon logs each request as it is routed (before its body) and the start of its shutdown: the steps below wait for those lines.
    const daemon = await startTestDaemon({ env: { NODECTL_LOG_LEVEL: 'info' } });
    const { hostname, port } = new URL(daemon.url);
    const body = JSON.stringify({ email: 'slow@example.com', consent: true });
    const socket = connect(Number(port), hostname);
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    let response = '';
    socket.on('data', (chunk) => (response += chunk.toString()));
    socket.write(
      `POST /v1/waitlist HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
    );
    socket.write(body.slice(0, 10));
    await daemon.untilOutput(/"url":"\/v1\/waitlist"[^\n]*"msg":"incoming request"/);
    const exited = daemon.stop('SIGTERM');
    await daemon.untilOutput('shutting down: no new requests');
    socket.write(body.slice(10));
    const code = await exited;
    socket.destroy();
    expect(response).toMatch(/^HTTP\/1.1 202/);
    expect(code).toBe(0);
  });

  it('SIGTERM once the warm start is done, nothing ingested, exits 0 (its idle threads do not keep it up)', async () => {
    const daemon = await startTestDaemon({
      env: { NODECTL_EXTRACTION_WARM_UP_PAGES: '100', NODECTL_LOG_LEVEL: 'info' },
    });
    await daemon.untilOutput('extraction workers warmed up', 15_000);
    expect(await daemon.stop('SIGTERM')).toBe(0);
  }, 30_000);

  it('SIGINT exits 0 and leaves the data directory reopenable', async () => {
    const temp = makeTempDir();
    const daemon = await startTestDaemon({ dataDir: temp.dir });
    expect(await daemon.stop('SIGINT')).toBe(0);
    const again = await startTestDaemon({ dataDir: temp.dir });
    expect(await again.stop()).toBe(0);
    temp.cleanup();
  });

  it('writes JSON logs that never hold a credential', async () => {
    const daemon = await startTestDaemon({ env: { NODECTL_LOG_LEVEL: 'info' } });
    await getJson(`${daemon.url}/v1/waitlist`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: 'Bearer nk_live_SECRETSECRETSECRET',
        'x-api-key': 'nk_live_OTHERSECRET',
        cookie: 'svc_refresh=COOKIESECRET',
      },
      body: JSON.stringify({ email: 'log@example.com', consent: true, password: 'PASSWORDSECRET' }),
    });
    await daemon.stop();
    const lines = daemon
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'));
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    expect(lines.some((line) => JSON.parse(line).reqId !== undefined)).toBe(true);
    expect(daemon.output()).not.toMatch(/SECRET/);
    expect(daemon.output()).not.toContain('extraction workers warmed up'); // NODECTL_EXTRACTION_WARM_UP_PAGES=0
  });

  it('warms its extraction workers up in the background once it listens, then says so', async () => {
    const daemon = await startTestDaemon({
      env: { NODECTL_LOG_LEVEL: 'info', NODECTL_EXTRACTION_WARM_UP_PAGES: '200' },
    });
    try {
      expect((await getJson(`${daemon.url}/readyz`)).status).toBe(200);
      const warmed = () => logLines(daemon, 'extraction workers warmed up');
      await daemon.untilOutput(/extraction workers warmed up[^\n]*\n/, 10_000);
      expect(warmed()).toEqual([expect.objectContaining({ pages: 200, workers: expect.any(Number) })]);
      expect(warmed()[0].workers).toBeGreaterThan(0);
    } finally {
      await daemon.stop();
    }
  });

  it('ends its idle ingest threads before a publish compiles, gives back what they freed, and says so; a publish with none idle says nothing', async () => {
    const temp = makeTempDir();
    const site = await seedDataDir(temp.dir, { domain: 'room.example' });
    const key = await seedApiKey(temp.dir, site.orgId, 'editor');
    await seedGraph(temp.dir, site.websiteId, [
      {
        type: 'post',
        id: 'post:1',
        url: 'https://room.example/posts/1',
        title: 'Post',
        text: 'Post\n\nA post.',
        checksum: `sha256:${'1'.padStart(64, '0')}`,
      },
    ]);
    const daemon = await startTestDaemon({
      dataDir: temp.dir,
      env: { NODECTL_LOG_LEVEL: 'info', NODECTL_EXTRACTION_WARM_UP_PAGES: '50' },
    });
    const ended = () => logLines(daemon, 'idle ingest threads ended before a publish');
    const publish = (force: boolean) =>
      getJson(`${daemon.url}/v1/websites/${site.websiteId}/publish`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ force }),
      });
    try {
      await daemon.untilOutput(/extraction workers warmed up[^\n]*\n/, 15_000);
      const warmed = logLines(daemon, 'extraction workers warmed up')[0]!;
      expect((await publish(false)).status).toBe(200);
      // Every warmed worker and the writer thread the warm start made; then what they freed given
      // back to the system (glibc's malloc_trim; the test machines run glibc).
      expect(ended()).toEqual([
        expect.objectContaining({
          extractionWorkers: warmed.workers,
          graphWriter: true,
          rssMb: { before: expect.any(Number), after: expect.any(Number) },
        }),
      ]);
      expect((await publish(true)).status).toBe(200);
      expect(ended()).toHaveLength(1);
    } finally {
      await daemon.stop();
      temp.cleanup();
    }
  });

  it('a bad setting in the config file stops serve with exit 2 and the reason', async () => {
    const temp = makeTempDir();
    writeFileSync(join(temp.dir, 'config.json'), JSON.stringify({ port: 'eighty' }));
    const run = await runNodectl(['serve'], { dataDir: temp.dir });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/Invalid value for port \(from config file/);
    temp.cleanup();
  });
});
