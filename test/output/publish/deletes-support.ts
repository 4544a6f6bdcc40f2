import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { resolveConfig } from '../../../src/platform/config/config.js';
import { type AppServices } from '../../../src/platform/app/services.js';
import { createServices } from '../../../src/daemon/create-services.js';
import { acceptItems } from '../../../src/ingest/endpoints/accept.js';
import { deleteItems } from '../../../src/ingest/endpoints/delete-items.js';
import type { DeleteResult } from '../../../src/platform/contract/ingest-results.js';
import type { DeleteReason } from '../../../src/platform/contract/ingest-requests.js';
import type { IngestWebsite } from '../../../src/ingest/endpoints/website-context.js';
import { JOBS } from '../../../src/daemon/job-definitions.js';
import { JobWorker, laneConcurrency } from '../../../src/platform/job-runtime/job-worker.js';
import { siteHashOf, siteKeys } from '../../../src/output/publish/layout.js';
import type { PublishResult } from '../../../src/output/publish/publish-node.js';
import { runPublish } from '../../../src/output/publish/run-publish.js';
import { readLiveManifest } from '../../../src/output/publish/store.js';
import { createTargetFromSettings, type PublishTarget } from '../../../src/output/publish/targets/index.js';
import { makeTempDir } from '../../helpers/paths.js';

export const WEBSITE_ID = 'web_01JDELETESTESTSITE0000000';
export const DOMAIN = 'example.com';
export const SITE_HASH = siteHashOf(WEBSITE_ID);
export const KEYS = siteKeys(SITE_HASH);

/**
 * One data directory with a website, real SQLite files and the real job handlers, on a fake
 * clock (10 s past a minute, so the deletes of a test fall in one coalescing minute). Items go in
 * through acceptItems and deleteItems, what the ingest routes call; jobs run through the queue.
 */
export interface DeleteHarness {
  services: AppServices;
  website: IngestWebsite;
  dataDir: string;
  target: PublishTarget;
  advance(ms: number): void;
  ingest(items: Array<Record<string, unknown>>): Promise<void>;
  remove(ids: string[], reason?: DeleteReason): Promise<DeleteResult>;
  /** Runs every due job (in run_at order) until none is due; returns how many ran. */
  runJobs(): Promise<number>;
  publish(force?: boolean): Promise<PublishResult>;
  liveVersion(): Promise<string | undefined>;
  close(): Promise<void>;
}

export async function createDeleteHarness(env: Record<string, string> = {}): Promise<DeleteHarness> {
  const temp = makeTempDir('nodectl-deletes-');
  let clock = Date.parse('2026-03-02T10:00:10Z');
  const services = createServices(resolveConfig({ flags: { dataDir: temp.dir }, env }), { now: () => clock });
  const db = services.controlDb;
  db.prepare(
    `INSERT INTO organizations (id, name, slug, plan, created_at) VALUES ('org_1', 'Acme', 'acme', 'pro', 'x')`,
  ).run();
  db.prepare(
    `INSERT INTO websites (id, organization_id, domain, name, brand, default_language, created_at) VALUES (?, 'org_1', ?, 'Example', NULL, 'en', 'x')`,
  ).run(WEBSITE_ID, DOMAIN);
  const website: IngestWebsite = {
    id: WEBSITE_ID,
    organizationId: 'org_1',
    domain: DOMAIN,
    defaultLanguage: 'en',
    plan: 'pro',
    hosts: new Set([DOMAIN]),
  };
  const target = await createTargetFromSettings(services.config.settings);
  const worker = new JobWorker(services.jobs, JOBS, services, {
    lanes: laneConcurrency(services.config.settings),
    pollMs: 10,
  });
  return {
    services,
    website,
    dataDir: temp.dir,
    target,
    advance: (ms) => void (clock += ms),
    async ingest(items) {
      const result = await acceptItems({
        services,
        website,
        connectorId: 'conn_1',
        rawItems: items,
        partial: false,
        endpoint: 'batch',
      });
      if (result.accepted !== items.length) throw new Error(`ingest: ${JSON.stringify(result.results)}`);
    },
    remove: (ids, reason = 'source_deleted') => deleteItems(services, website, ids, reason),
    runJobs: () => worker.drain(),
    publish: (force = false) =>
      runPublish({
        settings: services.config.settings,
        controlDb: db,
        target,
        source: { kind: 'website', websiteId: WEBSITE_ID },
        force,
        now: () => clock,
      }),
    liveVersion: async () => (await readLiveManifest(target, SITE_HASH))?.node_version,
    async close() {
      await worker.stop();
      await target.close();
      services.close();
      temp.cleanup();
    },
  };
}

/** Every file under `dir` (recursively) whose bytes contain `needle`. */
export function filesContaining(dir: string, needle: string): string[] {
  const hits: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (readFileSync(path).includes(needle)) hits.push(path);
    }
  };
  walk(dir);
  return hits.sort();
}
