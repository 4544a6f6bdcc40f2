import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { startTestDaemon, type TestDaemon } from '../../helpers/daemon.js';
import { makeTempDir } from '../../helpers/paths.js';
import { seedApiKey, seedDataDir, seedGraph } from '../../helpers/seed.js';
import { threadCpuTicks } from '../../helpers/threads.js';

// Runs the built binary (`npm run build` first): the publish route runs its worker from dist/.
const temp = makeTempDir('nodectl-publish-worker-');
const DOMAIN = 'worker.example';
const EMPTY_DOMAIN = 'never-published.example';
const ITEMS = 2000;
let daemon: TestDaemon;
let websiteId: string;
let editorKey: string;
let empty: { websiteId: string; editorKey: string; adminKey: string };

beforeAll(async () => {
  // Seeded in this process: the subject is the daemon's publish route.
  const site = await seedDataDir(temp.dir, { domain: DOMAIN, plan: 'pro' });
  websiteId = site.websiteId;
  editorKey = await seedApiKey(temp.dir, site.orgId, 'editor');
  const other = await seedDataDir(temp.dir, { domain: EMPTY_DOMAIN, plan: 'pro' });
  empty = {
    websiteId: other.websiteId,
    editorKey: await seedApiKey(temp.dir, other.orgId, 'editor'),
    adminKey: await seedApiKey(temp.dir, other.orgId, 'organization_admin'),
  };
  // A moderately sized graph: its compile takes long enough that a blocked event loop would show.
  const items = Array.from({ length: ITEMS }, (_, i) => ({
    type: 'post' as const,
    id: `post:${i}`,
    url: `https://${DOMAIN}/posts/${i}`,
    title: `Post ${i}`,
    text: `Post ${i}\n\nRoasting notes ${'espresso filter origin '.repeat(20)}part ${i}.`,
    checksum: `sha256:${i.toString(16).padStart(64, '0')}`,
  }));
  await seedGraph(temp.dir, websiteId, items);
  daemon = await startTestDaemon({ dataDir: temp.dir });
}, 120_000);
afterAll(async () => {
  await daemon?.stop();
  temp.cleanup();
});

const call = async (
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  key?: string,
  body?: unknown,
  headers: Record<string, string> = {},
) => {
  const res = await request(`${daemon.url}${path}`, {
    method,
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, text, json: () => JSON.parse(text) };
};
const publish = (key: string, id: string, body?: unknown) => call('POST', `/v1/websites/${id}/publish`, key, body);

describe('the publish route runs the compile and the publish in a worker thread', () => {
  it('bug "a publish of a large website blocks the event loop": /healthz keeps answering while a publish runs, whose CPU time is spent off the event loop\'s thread; the route still answers 200 with the version', async () => {
    const pid = daemon.process.pid!;
    const linux = process.platform === 'linux';
    // CPU ticks of the daemon's threads: the event loop's (the main thread, tid = pid) and the publish's
    // (its worker and the threads it starts, all named nodectl-*). A thread that ends takes its ticks out
    // of /proc with it, so each thread's last reading is kept: sampled with every probe, the publish's
    // threads are seen while they work.
    const seen = new Map<number, { name: string; ticks: number }>();
    const cpu = () => {
      for (const t of linux ? threadCpuTicks(pid) : []) seen.set(t.tid, { name: t.name, ticks: t.ticks });
      let loop = 0;
      let publish = 0;
      for (const [tid, t] of seen) {
        if (tid === pid) loop += t.ticks;
        else if (t.name.startsWith('nodectl-')) publish += t.ticks;
      }
      return { loop, publish };
    };
    const before = cpu();
    const running = publish(editorKey, websiteId);
    let done = false;
    void running.finally(() => (done = true));
    // The threads are also read every 10 ms until the publish answers: the probes below stop after
    // a few answers, and a publish thread that ends unread would take its ticks with it.
    const sampler = linux ? setInterval(cpu, 10) : undefined;
    // Probes one after another (each sent once the previous one answered), counted from when the
    // publish's threads are seen working until the publish answers. A publish that held the event
    // loop (it compiled on the main thread, in chunks of up to a second) let a probe through now
    // and then; here they keep coming.
    let answeredWhilePublishing = 0;
    while (!done && answeredWhilePublishing <= 5) {
      const probe = await call('GET', '/healthz');
      expect(probe.status).toBe(200);
      if (!done && (!linux || cpu().publish > before.publish)) answeredWhilePublishing++;
    }
    const res = await running.finally(() => clearInterval(sampler));
    const after = cpu();
    expect(res.status, res.text).toBe(200);
    expect(res.json().data).toMatchObject({
      versionUlid: expect.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/),
      versionLabel: expect.stringMatching(/\.1$/),
      cdnPath: `${daemon.url}/nodes/${DOMAIN}`,
      alreadyLive: false,
    });
    expect(answeredWhilePublishing, 'probes answered one after another while the publish ran').toBeGreaterThan(5);
    // The compile and the publish ran on their own threads: they took more CPU there than the event loop took in all.
    if (linux)
      expect(
        after.publish - before.publish,
        `CPU ticks: publish threads ${after.publish - before.publish}, event loop ${after.loop - before.loop}`,
      ).toBeGreaterThan(after.loop - before.loop);
  }, 120_000);

  it('bug "concurrent publishes of one website both answer 200": one wins (200), the other gets 409 publish.conflict (retryable, Retry-After); latest/ is the winner', async () => {
    const results = await Promise.all([
      publish(editorKey, websiteId, { force: true }),
      publish(editorKey, websiteId, { force: true }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const lost = results.find((r) => r.status === 409)!;
    expect(lost.json()).toMatchObject({ ok: false, error: { code: 'publish.conflict', retryable: true } });
    expect(Number(lost.headers['retry-after'])).toBeGreaterThan(0);
    const won = results.find((r) => r.status === 200)!.json().data;
    expect((await call('GET', `/nodes/${DOMAIN}/manifest.json`)).json().node_version).toBe(won.versionUlid);
  }, 120_000);

  it('bug "publish of a website with no graph answers 404 website.not_found": it is 409 publish.nothing_to_publish, saying nothing was ingested yet (the worker\'s error keeps its code)', async () => {
    const res = await publish(empty.editorKey, empty.websiteId);
    expect(res.status).toBe(409);
    expect(res.json()).toMatchObject({ ok: false, error: { code: 'publish.nothing_to_publish', retryable: false } });
    expect(res.json().error.message).toMatch(/Nothing has been ingested for website .* yet/);
    expect(res.text).not.toMatch(/at .*\.js:\d+/); // no stack
    expect((await publish(empty.editorKey, 'web_doesnotexist')).json()).toMatchObject({
      error: { code: 'website.not_found' },
    });
  });

  it('bug "takedown of a never-published website: the alias says 404, not 410": after the takedown every file of the domain answers 410 node.gone', async () => {
    expect((await call('GET', `/nodes/${EMPTY_DOMAIN}/manifest.json`)).status).toBe(404);
    const res = await call('DELETE', `/v1/websites/${empty.websiteId}/node`, empty.adminKey);
    expect(res.status).toBe(200);
    expect(res.json().data).toEqual({ tombstoned: true });
    for (const path of [
      'manifest.json',
      'llms.txt',
      'facts.en.jsonl',
      'versions/01ARZ3NDEKTSV4RRFFQ69G5FAV/llms.txt',
    ]) {
      const gone = await call('GET', `/nodes/${EMPTY_DOMAIN}/${path}`);
      expect(gone.status, path).toBe(410);
      expect(gone.json()).toMatchObject({ ok: false, error: { code: 'node.gone' } });
    }
  });

  it('bug "node files are served without X-Content-Type-Options": every node file answer (200, 304, 410) says nosniff', async () => {
    const file = await call('GET', `/nodes/${DOMAIN}/llms.txt`);
    expect(file.status).toBe(200);
    expect(file.headers['x-content-type-options']).toBe('nosniff');
    const cached = await call('GET', `/nodes/${DOMAIN}/llms.txt`, undefined, undefined, {
      'if-none-match': file.headers.etag as string,
    });
    expect(cached.status).toBe(304);
    expect(cached.headers['x-content-type-options']).toBe('nosniff');
    expect((await call('GET', `/nodes/${EMPTY_DOMAIN}/llms.txt`)).headers['x-content-type-options']).toBe('nosniff');
  });
});
