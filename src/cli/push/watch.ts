import { relative, sep } from 'node:path';
import type { IngestError } from '../../sdk/client/errors.js';
import { isPushable, itemIdOf, mapFile } from './map-files.js';
import type { PushProgress } from './progress.js';
import { createPushClient, pushItems, type PushOptions, type PushReport } from './run-push.js';

/**
 * Watches a folder (chokidar) and pushes changes as they happen: added or changed files as a
 * batch, removed files through the delete endpoint. Events are gathered for `debounceMs` so a
 * save of many files makes one request. Resolves when `signal` aborts.
 */
export async function watchFolder(
  options: PushOptions & { report: PushReport; debounceMs?: number; signal: AbortSignal; onIdle?: () => void },
): Promise<void> {
  const { watch } = await import('chokidar');
  const client = createPushClient(options);
  const baseUrl = options.baseUrl ?? `https://${options.domain}`;
  const changed = new Set<string>();
  const removed = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const progress: PushProgress = options.progress;

  const flush = async () => {
    const toPush = [...changed].sort();
    const toDelete = [...removed].sort();
    changed.clear();
    removed.clear();
    const items = [];
    for (const rel of toPush) {
      try {
        items.push(mapFile(options.source, rel, { baseUrl }));
      } catch (error) {
        progress.note(`skipped file ${rel}: ${(error as Error).message}`);
      }
    }
    if (items.length > 0) await pushItems(client, items, options.report, progress);
    if (toDelete.length > 0) {
      try {
        const result = await client.deleteItems(toDelete.map(itemIdOf));
        options.report.summary.deleted += result.tombstoned.length;
        options.report.summary.notFound += result.not_found.length;
        progress.note(
          `deleted ${result.tombstoned.length}${result.not_found.length ? `, not found ${result.not_found.length}` : ''}`,
        );
      } catch (error) {
        options.report.summary.failedRequests++;
        progress.note(`delete failed: [${(error as IngestError).code}] ${(error as Error).message}`);
      }
    }
    options.onIdle?.();
  };
  const schedule = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      running = running.then(flush);
    }, options.debounceMs ?? 200);
  };
  const rel = (path: string) => relative(options.source, path).split(sep).join('/');
  const watcher = watch(options.source, {
    ignoreInitial: true,
    ignored: (path) => /(^|[\\/])\.(?!$)/.test(relative(options.source, path)) || /node_modules/.test(path),
    awaitWriteFinish: { stabilityThreshold: 100, pollInterval: 25 },
  });
  watcher.on('add', (p) => {
    if (isPushable(p)) (removed.delete(rel(p)), changed.add(rel(p)), schedule());
  });
  watcher.on('change', (p) => {
    if (isPushable(p)) (changed.add(rel(p)), schedule());
  });
  watcher.on('unlink', (p) => {
    if (isPushable(p)) (changed.delete(rel(p)), removed.add(rel(p)), schedule());
  });
  await new Promise<void>((resolve) => watcher.on('ready', () => resolve()));
  progress.note(`watching ${options.source} for changes (Ctrl-C to stop)`);
  options.onIdle?.();
  await new Promise<void>((resolve) => options.signal.addEventListener('abort', () => resolve(), { once: true }));
  clearTimeout(timer);
  await watcher.close();
  await running;
}
