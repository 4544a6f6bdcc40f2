import { existsSync, mkdtempSync, renameSync, rmSync, watch, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startPostgresCluster, type PostgresCluster } from '../helpers/postgres-cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresRendezvous: string;
    /** 'postgres' in the app-postgres project: buildTestApp puts the control tables on PostgreSQL. */
    controlStoreUnderTest?: 'postgres';
  }
}

/**
 * Global setup (the main process, once per project): one throw-away PostgreSQL for the whole run,
 * started only when a test file asks for it (test/helpers/postgres.ts writes `request` into the
 * rendezvous folder), so a run without such a file starts none. The main process starts it
 * because an app test may start no process. The folder then holds `url`, or `error` saying why
 * the server could not start; the server stops and goes when the run ends.
 */
export default function setup(project: TestProject): () => Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), 'nodectl-pg-rendezvous-'));
  project.provide('postgresRendezvous', folder);
  let cluster: Promise<PostgresCluster | undefined> | undefined;
  const publish = (name: 'url' | 'error', text: string) => {
    writeFileSync(join(folder, `${name}.partial`), text);
    renameSync(join(folder, `${name}.partial`), join(folder, name)); // whole when it appears
  };
  const start = () => {
    cluster ??= startPostgresCluster().then(
      (started) => (publish('url', started.url), started),
      (error: unknown) => (publish('error', (error as Error).message), undefined),
    );
  };
  const watcher = watch(folder, (_event, name) => void (name === 'request' && start()));
  if (existsSync(join(folder, 'request'))) start();
  return async () => {
    watcher.close();
    await (await cluster)?.stop();
    rmSync(folder, { recursive: true, force: true });
  };
}
