// Ingest throughput with one and with two worker daemons on one machine (issue 41, docs/scaling.md):
// the same websites and pages, pushed through signed batches, on a PostgreSQL control store and an
// S3-protocol bucket (s3rver, in its own process), from the first push until every content.ingest
// job has succeeded. With two daemons, website i is pushed through daemon i % 2, so each daemon
// takes (and writes) half of the websites; the other's requests would be forwarded to it.
// Needs a PostgreSQL it may create databases in:
//   node bench/cluster.mjs --url postgres://user@127.0.0.1:5432/postgres [--websites 4] [--pages 300]
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { freshBenchDatabase } from './lib/postgres.mjs';
import { Agent } from 'undici';
import { startBenchDaemon } from './lib/daemon.mjs';
import { startS3Server } from './lib/s3-server.mjs';
import { seedBenchSite } from './lib/seed-site.mjs';
import { signedBatchSender } from './lib/signed-push.mjs';
import { SITE_SOURCE_TYPES, sitePage } from './lib/site-pages.mjs';

const { values: args } = parseArgs({
  options: {
    url: { type: 'string' },
    websites: { type: 'string', default: '4' },
    pages: { type: 'string', default: '300' },
  },
});
const serverUrl = args.url ?? process.env.NODECTL_BENCH_POSTGRES_URL;
if (!serverUrl) {
  console.error('bench/cluster.mjs needs a PostgreSQL server: --url postgres://user@host:port/postgres');
  process.exit(2);
}
const WEBSITES = Number(args.websites);
const PAGES = Number(args.pages);
if (!Number.isInteger(WEBSITES) || WEBSITES < 2 || !Number.isInteger(PAGES) || PAGES < 10) {
  console.error('--websites must be an integer of at least 2 and --pages of at least 10');
  process.exit(2);
}
const BATCH = 50;
const BIN = fileURLToPath(new URL('../bin/nodectl', import.meta.url));
const client = await import('../dist/sdk/client/index.js');

/** One run: `daemons` daemons, every website's pages pushed, timed until every job succeeded. */
async function run(daemonCount, s3) {
  const controlStore = await freshBenchDatabase(serverUrl, 'cluster');
  const folders = Array.from({ length: daemonCount }, () => mkdtempSync(join(tmpdir(), 'nodectl-bench-cluster-')));
  const env = {
    NODECTL_CONTROL_STORE: controlStore,
    NODECTL_PUBLISH_TARGET: 's3',
    NODECTL_S3_BUCKET: 'nodes',
    NODECTL_S3_ENDPOINT: s3.endpoint,
    NODECTL_S3_FORCE_PATH_STYLE: 'true',
    NODECTL_S3_ACCESS_KEY_ID: 'S3RVER',
    NODECTL_S3_SECRET_ACCESS_KEY: 'S3RVER',
    NODECTL_S3_REGION: 'us-east-1',
    NODECTL_S3_PREFIX: `run-${daemonCount}/`,
    NODECTL_EXTRACTION_WARM_UP_PAGES: '0',
  };
  Object.assign(process.env, env);
  const started = [];
  const agent = new Agent({ connections: 8 });
  const db = new pg.Client({ connectionString: controlStore });
  try {
    started.push(await startBenchDaemon(folders[0]));
    for (const folder of folders.slice(1)) {
      cpSync(join(folders[0], 'keys'), join(folder, 'keys'), { recursive: true });
      started.push(await startBenchDaemon(folder));
    }
    const sites = Array.from({ length: WEBSITES }, (_, w) =>
      seedBenchSite({
        bin: BIN,
        dataDir: folders[0],
        domain: `site${w}.bench.example`,
        name: `Site ${w}`,
        email: `bench${w}@example.com`,
        sourceTypes: SITE_SOURCE_TYPES,
      }),
    );
    const bodies = sites.map(({ site }) => {
      const out = [];
      for (let b = 0; b < PAGES; b += BATCH) {
        const items = [];
        for (let i = b; i < Math.min(PAGES, b + BATCH); i++) {
          const page = sitePage(i, site.domain);
          items.push({ ...page, checksum: client.computeItemChecksum(page) });
        }
        out.push(Buffer.from(JSON.stringify({ website_id: site.id, partial: true, items })));
      }
      return out;
    });
    await db.connect();
    const t0 = performance.now();
    // Each website's batches in order, the websites side by side, website w through daemon w % n.
    await Promise.all(
      sites.map(async ({ site, connector }, w) => {
        const send = signedBatchSender({
          client,
          url: started[w % daemonCount].url,
          token: connector.token,
          websiteId: site.id,
          agent,
        });
        for (const body of bodies[w]) await send(body);
      }),
    );
    const pushedMs = performance.now() - t0;
    for (;;) {
      const { rows } = await db.query(
        `SELECT COUNT(*) FILTER (WHERE state <> 'succeeded') AS open, COUNT(*) FILTER (WHERE state = 'dead') AS dead
         FROM jobs WHERE kind = 'content.ingest'`,
      );
      if (Number(rows[0].dead) > 0) throw new Error(`${rows[0].dead} content.ingest jobs died`);
      if (Number(rows[0].open) === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const doneMs = performance.now() - t0;
    const { rows: owners } = await db.query(
      'SELECT COUNT(DISTINCT owner) AS n FROM website_leases WHERE expires_at > $1',
      [Date.now()],
    );
    const pages = WEBSITES * PAGES;
    return {
      daemons: daemonCount,
      pages,
      writers: Number(owners[0].n),
      pushed_s: +(pushedMs / 1000).toFixed(2),
      processed_s: +(doneMs / 1000).toFixed(2),
      pages_per_s: Math.round(pages / (doneMs / 1000)),
    };
  } finally {
    await db.end().catch(() => {});
    await agent.close();
    for (const daemon of started) daemon.child.kill('SIGTERM');
    await Promise.all(started.map((d) => new Promise((resolve) => d.child.once('exit', resolve))));
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  }
}

const s3Dir = mkdtempSync(join(tmpdir(), 'nodectl-bench-cluster-s3-'));
const s3 = await startS3Server(s3Dir);
try {
  const one = await run(1, s3);
  const two = await run(2, s3);
  console.log(
    JSON.stringify(
      {
        bench: 'cluster',
        cores: cpus().length,
        load: loadavg()[0].toFixed(2),
        websites: WEBSITES,
        pages_per_website: PAGES,
        one,
        two,
        two_over_one: +(two.pages_per_s / one.pages_per_s).toFixed(2),
      },
      null,
      2,
    ),
  );
} finally {
  await s3.stop();
  rmSync(s3Dir, { recursive: true, force: true });
}
