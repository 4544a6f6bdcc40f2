import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadFixture } from '../../../src/compiler/index.js';
import { buildGraphFromItems } from '../../../src/ingest/graph/build-from-items.js';
import { acquirePublishLock, siteHashOf, siteKeys } from '../../../src/output/publish/index.js';
import { EventEmitter, once } from 'node:events';
import {
  closeSparePublishWorker,
  keepSparePublishWorker,
  makeRoomBeforeEachPublish,
  publishWorkerUrl,
  runPublishInWorker,
  sparePublishWorker,
} from '../../../src/output/publish/publish-in-worker.js';
import { createFsTarget } from '../../../src/output/publish/targets/fs.js';
import { dataDirLayout, graphDbPath } from '../../../src/platform/storage/data-dir.js';
import { loadWebsiteInfo } from '../../../src/control/records/load-website.js';
import { buildTestApp, seedWebsite, type SeededWebsite, type TestApp } from '../../helpers/app.js';
import { until } from '../../helpers/until.js';
import { SHOP, SHOP_DOMAIN } from './support.js';

// The worker thread runs from dist/ (`npm run build` first); this process runs the sources.
let t: TestApp;
let site: SeededWebsite;

beforeAll(async () => {
  t = await buildTestApp();
  site = await seedWebsite(t.services, SHOP_DOMAIN);
  const info = loadWebsiteInfo(t.services.controlDb, site.websiteId)!;
  buildGraphFromItems(loadFixture(SHOP).items, info, {
    receivedAt: '2026-03-02T09:00:00Z',
    file: graphDbPath(dataDirLayout(t.dataDir), site.websiteId),
  }).close();
}, 60_000);
afterAll(async () => t?.close());

const publish = (extra: Partial<Parameters<typeof runPublishInWorker>[0]> = {}) =>
  runPublishInWorker({
    settings: t.services.config.settings,
    controlDb: t.services.controlDb,
    source: { kind: 'website', websiteId: site.websiteId },
    ...extra,
  });

describe('runPublishInWorker (the publish route, and the call the node.republish job can make)', () => {
  it("passes runPublish's plain options to the worker as they are (buildTime here) and answers its result", async () => {
    const result = await publish({ buildTime: '2026-03-02T10:00:00Z' });
    expect(result).toMatchObject({ websiteId: site.websiteId, alreadyLive: false, rejected: { total: 0 } });
    const target = createFsTarget({ root: t.services.layout.nodesDir });
    expect(JSON.parse((await target.get(siteKeys(siteHashOf(site.websiteId)).pointer))!.toString())).toMatchObject({
      node_version: result.versionUlid,
      generated_at: '2026-03-02T10:00:00Z',
    });
  }, 60_000);

  it('keeps one spare worker once asked (the daemon does): a publish runs in it, the next spare starts once its thread ended, closing ends it', async () => {
    keepSparePublishWorker();
    try {
      const first = sparePublishWorker()!;
      expect(first).toBeDefined();
      const firstExited = once(first, 'exit');
      const result = await publish({ force: true, buildTime: '2026-03-02T11:00:00Z' });
      // Answered: a spare is there only if the publish's thread has already ended (its memory freed first).
      const [endedAtAnswer, spareAtAnswer] = [first.threadId === -1, sparePublishWorker()];
      expect(spareAtAnswer === undefined || endedAtAnswer).toBe(true);
      expect(result).toMatchObject({ websiteId: site.websiteId, alreadyLive: false });
      await firstExited; // one publish per worker
      const second = sparePublishWorker()!;
      expect(second).toBeDefined();
      expect(second).not.toBe(first);
      // The spare is given its input by message: the publish it runs is the caller's.
      const again = await publish({ force: true, buildTime: '2026-03-02T12:00:00Z' });
      const target = createFsTarget({ root: t.services.layout.nodesDir });
      expect(JSON.parse((await target.get(siteKeys(siteHashOf(site.websiteId)).pointer))!.toString())).toMatchObject({
        node_version: again.versionUlid,
        generated_at: '2026-03-02T12:00:00Z',
      });
    } finally {
      await closeSparePublishWorker();
    }
    expect(sparePublishWorker()).toBeUndefined();
  }, 60_000);

  it('starts no spare after a publish whose thread ends once the daemon stopped keeping one (its shutdown)', async () => {
    keepSparePublishWorker();
    const running = sparePublishWorker()!;
    const exited = once(running, 'exit');
    const publishing = publish({ force: true, buildTime: '2026-03-02T13:00:00Z' });
    await closeSparePublishWorker();
    await publishing;
    await exited;
    expect(sparePublishWorker()).toBeUndefined();
  }, 60_000);

  it('awaits the room the daemon makes (its idle ingest threads ended) before its thread starts; a failure there stops nothing', async () => {
    keepSparePublishWorker();
    try {
      let spareAfterRoom: unknown;
      makeRoomBeforeEachPublish(async () => {
        await new Promise(setImmediate);
        // Still waiting: the publish has not taken the spare yet.
        spareAfterRoom = sparePublishWorker();
      });
      const made = await publish({ force: true, buildTime: '2026-03-02T13:30:00Z' });
      expect(spareAfterRoom).toBeDefined();
      expect(made.alreadyLive).toBe(false);

      makeRoomBeforeEachPublish(() => Promise.reject(new Error('a thread would not end')));
      const again = await publish({ force: true, buildTime: '2026-03-02T13:40:00Z' });
      expect(again).toMatchObject({ websiteId: site.websiteId, alreadyLive: false });
    } finally {
      makeRoomBeforeEachPublish(undefined);
      await closeSparePublishWorker();
    }
  }, 60_000);

  it('stopped while the room is made: rejects with the reason, runs no publish, and frees the lock', async () => {
    const controller = new AbortController();
    makeRoomBeforeEachPublish(async () => controller.abort(new Error('stopped while making room')));
    try {
      await expect(
        publish({ force: true, signal: controller.signal, buildTime: '2026-03-02T13:50:00Z' }),
      ).rejects.toThrow('stopped while making room');
    } finally {
      makeRoomBeforeEachPublish(undefined);
    }
    const target = createFsTarget({ root: t.services.layout.nodesDir });
    const live = JSON.parse((await target.get(siteKeys(siteHashOf(site.websiteId)).pointer))!.toString());
    expect(live.generated_at).toBe('2026-03-02T13:40:00Z');
    expect((await publish({ force: true, buildTime: '2026-03-02T13:55:00Z' })).alreadyLive).toBe(false);
  }, 60_000);

  it('an aborted signal stops the worker mid-publish: the call rejects, the lock is free and the previous version stays live, whole', async () => {
    const target = createFsTarget({ root: t.services.layout.nodesDir });
    const keys = siteKeys(siteHashOf(site.websiteId));
    const live = JSON.parse((await target.get(keys.pointer))!.toString()) as {
      node_version: string;
      files: Array<{ path: string; bytes: number }>;
    };
    const controller = new AbortController();
    // A worker's stderr reaches this thread's process.stderr: the pause says `paused at latest` there.
    let stderr = '';
    const written = new EventEmitter();
    const write = process.stderr.write.bind(process.stderr);
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation(((
      chunk: string | Uint8Array,
      ...rest: never[]
    ) => {
      stderr += String(chunk);
      written.emit('data');
      return write(chunk, ...rest);
    }) as typeof process.stderr.write);
    process.env.NODECTL_FAULT_PAUSE_AT = 'latest'; // the worker takes a copy of the environment when it starts
    let running: Promise<unknown>;
    try {
      running = publish({ force: true, signal: controller.signal }).then(
        () => 'published',
        (e: Error) => e,
      );
    } finally {
      delete process.env.NODECTL_FAULT_PAUSE_AT;
    }
    // The new version is complete in versions/ once the worker waits at the latest step.
    try {
      await until(
        written,
        'data',
        () => stderr.includes('paused at latest\n'),
        'the publish worker to pause at the latest step',
      );
    } finally {
      spy.mockRestore();
    }
    controller.abort();
    const outcome = await running;
    expect(outcome).toBeInstanceOf(Error);
    expect((outcome as Error).message).toMatch(/was stopped; the previous version stays live/);
    acquirePublishLock(t.services.controlDb, site.websiteId).release();
    expect(JSON.parse((await target.get(keys.pointer))!.toString()).node_version).toBe(live.node_version);
    for (const f of live.files)
      expect((await target.head(keys.version(live.node_version, f.path)))?.bytes, f.path).toBe(f.bytes);
    await expect(publish({ signal: controller.signal })).rejects.toThrow(/abort/i);
  }, 60_000);

  it("builds the version at the caller's time of asking, not at the worker's, so publishes asked in order build in order", async () => {
    // A frozen clock 1 ms before a second boundary: any time the worker takes would cross it.
    const askedAt = Date.parse('2026-03-02T23:00:00.999Z');
    const result = await publish({ force: true, now: () => askedAt });
    const target = createFsTarget({ root: t.services.layout.nodesDir });
    expect(JSON.parse((await target.get(siteKeys(siteHashOf(site.websiteId)).pointer))!.toString())).toMatchObject({
      node_version: result.versionUlid,
      generated_at: '2026-03-02T23:00:00Z',
    });
  }, 60_000);

  it("a forced publish asked in the live version's second makes a new version a second later, not the live one again", async () => {
    const askedAt = Date.parse('2026-03-02T23:00:00.999Z'); // the second of the version the test above made
    const result = await publish({ force: true, now: () => askedAt });
    expect(result.alreadyLive).toBe(false);
    const target = createFsTarget({ root: t.services.layout.nodesDir });
    expect(JSON.parse((await target.get(siteKeys(siteHashOf(site.websiteId)).pointer))!.toString())).toMatchObject({
      node_version: result.versionUlid,
      generated_at: '2026-03-02T23:00:01Z',
    });
  }, 60_000);
});

describe('the publish worker module is found next to the running module', () => {
  it("from the build it is publish-worker.js beside publish-in-worker.js; from the sources, the build's copy", () => {
    expect(publishWorkerUrl('file:///opt/nodectl/dist/publish/publish-in-worker.js').href).toBe(
      'file:///opt/nodectl/dist/publish/publish-worker.js',
    );
    expect(publishWorkerUrl().pathname).toMatch(/\/dist\/output\/publish\/publish-worker\.js$/);
    expect(() => publishWorkerUrl('file:///nowhere/src/publish/publish-in-worker.ts')).toThrow(/run npm run build/);
  });
});
