import { Worker } from 'node:worker_threads';
import type { AppServices } from '../../platform/app/index.js';
import { AppError, type ErrorCode } from '../../platform/errors/index.js';
import type { NodeStoreReader } from '../publish/index.js';
import { graphDbPath, type Db } from '../../platform/storage/index.js';
import { loadWebsiteInfo, type WebsiteInfo } from '../../control/records/index.js';
import { buildTimeAt } from '../../compiler/index.js';
import { compareWithLive, type CompiledPreview, type NodePreview } from './preview.js';
import type { PreviewWorkerInput, PreviewWorkerMessage } from './preview-worker.js';
import { existingGraph } from './website-graph.js';
import { workerModuleUrl } from '../../platform/threads/index.js';

/** Websites whose last preview is kept. */
const CACHED_WEBSITES = 32;

export interface PreviewAnswer {
  preview: NodePreview;
  /** True when the compile was reused: the graph and the website are as they were when it ran. */
  cached: boolean;
}

export interface PreviewService {
  preview(websiteId: string): Promise<PreviewAnswer>;
  /** Stops compiles still running (the daemon is closing). */
  close(): Promise<void>;
}

const connections = new WeakMap<Db, number>();
let nextConnection = 0;

/**
 * The graph's state as this process sees it: which connection, SQLite's data_version (moves
 * when another connection or process commits) and total_changes() (rows this connection wrote,
 * which the daemon's ingest and editorial writes go through). Equal keys, equal graph.
 */
function graphState(db: Db): string {
  let id = connections.get(db);
  if (id === undefined) connections.set(db, (id = ++nextConnection));
  return `${id}:${db.pragma('data_version', { simple: true }) as number}:${db.prepare('SELECT total_changes()').pluck().get() as number}`;
}

/**
 * Node previews for the daemon: the compile runs in a worker thread (compilePreview in
 * preview-worker.ts) and is kept per website with the graph state and website settings it was
 * made from, so a repeated preview of an unchanged graph only compares with the live manifest.
 */
export function createPreviewService(
  services: Pick<AppServices, 'controlDb' | 'layout' | 'graphs' | 'now'>,
  store: () => Promise<NodeStoreReader>,
): PreviewService {
  const cache = new Map<string, { key: string; compiled: Promise<CompiledPreview> }>();
  const running = new Set<Worker>();

  const compileInWorker = (site: WebsiteInfo): Promise<CompiledPreview> => {
    const input: PreviewWorkerInput = {
      graphFile: graphDbPath(services.layout, site.websiteId),
      site,
      buildTime: buildTimeAt(services.now()),
    };
    const worker = new Worker(previewWorkerUrl(), { workerData: input });
    running.add(worker);
    return new Promise<CompiledPreview>((resolve, reject) => {
      worker.once('message', (message: PreviewWorkerMessage) => {
        if (message.kind === 'done') resolve(message.preview);
        else if (message.kind === 'app_error')
          reject(
            new AppError(
              message.code as ErrorCode,
              message.message,
              message.details ? { details: message.details } : {},
            ),
          );
        else reject(Object.assign(new Error(`preview worker: ${message.message}`), { stack: message.stack }));
      });
      worker.once('error', reject);
      worker.once('exit', (code) => {
        running.delete(worker);
        reject(new Error(`the preview worker exited (code ${code}) before it answered`));
      });
    });
  };

  return {
    async preview(websiteId) {
      const site = loadWebsiteInfo(services.controlDb, websiteId);
      const db = existingGraph(services, websiteId);
      if (!site || !db)
        throw new AppError(
          'publish.nothing_to_publish',
          `Nothing has been ingested for website ${websiteId} yet, so there is nothing to preview. Push content first (nodectl push, or POST /v1/ingest/batch) and wait for the ingest jobs to finish.`,
        );
      const key = `${graphState(db)}:${JSON.stringify(site)}`;
      let entry = cache.get(websiteId);
      const cached = entry?.key === key;
      if (!entry || !cached) {
        const fresh = { key, compiled: compileInWorker(site) };
        // A failed compile is not kept: the next preview tries again.
        fresh.compiled.catch(() => cache.get(websiteId) === fresh && cache.delete(websiteId));
        entry = fresh;
      }
      cache.delete(websiteId);
      cache.set(websiteId, entry);
      if (cache.size > CACHED_WEBSITES) cache.delete(cache.keys().next().value!);
      const compiled = await entry.compiled;
      const live = await (await store()).liveManifest(websiteId);
      return { preview: compareWithLive(compiled, live), cached };
    },
    async close() {
      await Promise.all([...running].map((worker) => worker.terminate()));
    },
  };
}

/**
 * The worker's module, next to this one: dist/output/knowledge/preview-worker.js when the daemon runs
 * from the build, the build's copy when this module runs from the sources (Node 20 cannot load a
 * .ts worker; in-process tests need `npm run build` first, as for the publish worker).
 */
export function previewWorkerUrl(here: string = import.meta.url): URL {
  return workerModuleUrl(here, 'preview-worker.js', 'the preview worker');
}
