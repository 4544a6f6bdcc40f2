#!/usr/bin/env node
// What one page costs the graph writer as the graph grows (issue 40 item 1; docs/performance.md
// "Where the growth is"). For each size N, a base graph of N bench/lib/site-pages.mjs pages is
// built once (the content.ingest pipeline: extraction workers and the graph writer thread) and
// kept under --work; the same `--new` further pages (N .. N+new-1) are left pending in it. Each
// measurement copies the base and, in a child process of its own, extracts the new pages first
// (not measured), then writes them with the writer's statements (writePendingBatch, transactions
// of --txn items made of batches of --batch items, in the writer's transaction: writeBatch) and
// checkpoints. Load-independent counts come first: WAL frames written and the distinct pages they
// hold, per B-tree (the WAL's frame headers mapped to tables and indexes by dbstat), rows and
// index entries added, bytes read and written through syscalls (/proc/self/io); then the child's
// CPU time and minor page faults. The writer's connection is set up as the daemon's writer thread
// has it in the middle of an ingest: its page cache sized to the file before each transaction
// (fitWriterCache) and holding the indexes already (each read once before the clock). --cold skips
// both, as this bench did before stop 78: a 64 MiB cache that starts empty, so reads from the OS
// weigh more than in the daemon. Usage (after `npm run build`):
//   node bench/graph-growth.mjs [--root <build>] [--sizes 10000,100000] [--new 1000] [--txn 500]
//     [--batch <txn>] [--work <dir>] [--reps 1] [--cold]
// --root: the tree whose dist/ is measured (default this one); base graphs are built by it and
// kept per root under --work (default $TMPDIR/nodectl-graph-growth), so runs of one root reuse them.
import { execFileSync, fork } from 'node:child_process';
import {
  closeSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
} from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { basename, dirname, join, resolve as resolvePath } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sitePage } from './lib/site-pages.mjs';

const argOf = (name, fallback) =>
  process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : fallback;
const ROOT = resolvePath(argOf('--root', join(dirname(fileURLToPath(import.meta.url)), '..')));
const SIZES = argOf('--sizes', '10000,100000').split(',').map(Number);
const NEW = Number(argOf('--new', '1000'));
const TXN = Number(argOf('--txn', '500'));
const BATCH = Number(argOf('--batch', String(TXN)));
const REPS = Number(argOf('--reps', '1'));
const COLD = process.argv.includes('--cold');
const WORK = resolvePath(argOf('--work', join(tmpdir(), 'nodectl-graph-growth')));
const DOMAIN = 'scale.example';
const NOW = '2026-02-01T12:00:00.000Z';
const SITE = {
  websiteId: 'web_GROWTH',
  domain: DOMAIN,
  brand: 'Scale',
  defaultLanguage: 'en',
  plan: 'pro',
  verification: { method: 'dns_txt', state: 'verified' },
  aliases: [],
};
const load = () => loadavg()[0].toFixed(2);
const dist = (path) => import(join(ROOT, 'dist', path));
const log = (m) => process.stderr.write(`[graph-growth ${new Date().toISOString().slice(11, 19)}] ${m}\n`);

/** /proc/self/io as numbers. */
function procIo() {
  return Object.fromEntries(
    readFileSync('/proc/self/io', 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(': '))
      .map(([k, v]) => [k, Number(v)]),
  );
}

/** Writes pages [from, to) as raw items (pending) in chunks of 5,000. */
async function writePages(db, from, to) {
  const { writeRawItems } = await dist('ingest/graph/raw-items.js');
  const { computeItemChecksum } = await dist('sdk/client/index.js');
  for (let start = from; start < to; start += 5000) {
    const items = [];
    for (let i = start; i < Math.min(to, start + 5000); i++) {
      const page = sitePage(i, DOMAIN);
      items.push({ ...page, checksum: computeItemChecksum(page) });
    }
    writeRawItems(db, items, (i) => JSON.stringify(items[i]), {
      connectorId: 'conn_bench',
      defaultLanguage: 'en',
      receivedAt: NOW,
    });
  }
}

/** The base graph of n pages, built by the pipeline, the next NEW pages pending. */
async function baseGraph(n) {
  const dir = join(WORK, basename(ROOT) + '-' + Buffer.from(ROOT).toString('hex').slice(-12));
  const file = join(dir, `base-${n}-${NEW}.sqlite`);
  if (existsSync(file)) return file;
  mkdirSync(dir, { recursive: true });
  const { openDatabase } = await dist('platform/storage/sqlite.js');
  const { GRAPH_DB_OPTIONS } = await dist('ingest/graph/schema.js');
  const { createExtractionPool } = await dist('ingest/graph/extraction-pool.js');
  const { createGraphWriter } = await dist('ingest/graph/graph-writer.js');
  const { processRawItemsConcurrently } = await dist('ingest/graph/process-raw-items.js');
  const building = file + '.building';
  rmSync(building, { force: true });
  const db = openDatabase(building, GRAPH_DB_OPTIONS);
  const pool = createExtractionPool({ size: 1 });
  const writer = createGraphWriter();
  const t = performance.now();
  log(`building the ${n}-page base graph (load ${load()})`);
  for (let start = 0; start < n; start += 10000) {
    const end = Math.min(n, start + 10000);
    await writePages(db, start, end);
    const ids = db.prepare(`SELECT raw_content_id FROM raw_items WHERE state = 'pending' ORDER BY rowid`).pluck().all();
    const result = await processRawItemsConcurrently(db, SITE, ids, { now: NOW, pool, writer });
    if (result.failed > 0) throw new Error(`${result.failed} pages failed`);
    log(`  ${end} pages, ${Math.round(performance.now() - t)} ms (load ${load()})`);
  }
  await pool.close();
  await writer.close();
  await writePages(db, n, n + NEW);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  execFileSync('mv', [building, file]);
  for (const ext of ['-wal', '-shm']) rmSync(building + ext, { force: true });
  log(`built ${file} in ${Math.round(performance.now() - t)} ms`);
  return file;
}

/** In the child: writes the pending pages into `file` and reports the counts. */
async function measure(file) {
  const { openDatabase } = await dist('platform/storage/sqlite.js');
  const { GRAPH_DB_OPTIONS } = await dist('ingest/graph/schema.js');
  const { graphStatements, fitWriterCache } = await dist('ingest/graph/statements.js');
  const { extractRows } = await dist('ingest/graph/extract-row.js');
  const { writeBatch, writePendingBatch } = await dist('ingest/graph/process-raw-items.js');
  const db = openDatabase(file, GRAPH_DB_OPTIONS);
  const pageSize = db.pragma('page_size', { simple: true });
  const s = graphStatements(db);
  const ids = db.prepare(`SELECT raw_content_id FROM raw_items WHERE state = 'pending' ORDER BY rowid`).pluck().all();
  const batches = [];
  for (let i = 0; i < ids.length; i += BATCH) {
    const batch = ids.slice(i, i + BATCH);
    const rows = s.pendingRaw.all(JSON.stringify(batch));
    batches.push({ batch, extracted: { rows, outcomes: extractRows(rows, SITE, []) } });
  }
  const perTxn = Math.max(1, Math.floor(TXN / BATCH));
  const tables = db
    .prepare(
      `SELECT name FROM sqlite_schema WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' AND name NOT LIKE 'search_fts_%' AND name NOT LIKE 'sqlite_%'`,
    )
    .pluck()
    .all();
  const indexes = db.prepare(`SELECT tbl_name AS t, name, sql FROM sqlite_schema WHERE type = 'index'`).all();
  const count = () =>
    Object.fromEntries(tables.map((t) => [t, db.prepare(`SELECT COUNT(*) FROM "${t}"`).pluck().get()]));
  const rowsBefore = count();
  // The WAL is kept whole until the checkpoint at the end, so every frame written stays countable.
  db.pragma('wal_autocheckpoint = 0');
  db.pragma('synchronous = NORMAL');
  const fitCache = COLD ? () => {} : () => fitWriterCache(db);
  if (!COLD) {
    fitCache();
    // What a writer thread's cache holds after its first transactions: every index (a partial one
    // answers only queries inside its WHERE, so its pages come in with the first writes).
    for (const { t, name, sql } of indexes)
      if (!/\bWHERE\b/i.test(sql ?? '')) db.prepare(`SELECT COUNT(*) FROM "${t}" INDEXED BY "${name}"`).get();
  }
  const faults0 = process.resourceUsage();
  const io0 = procIo();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < batches.length; i += perTxn) {
    fitCache();
    writeBatch(db, () => {
      for (const { batch, extracted } of batches.slice(i, i + perTxn))
        writePendingBatch(db, SITE, batch, extracted, NOW);
    });
  }
  const writeWallMs = performance.now() - t0;
  const cpu1 = process.cpuUsage(cpu0);
  const faults1 = process.resourceUsage();
  const cacheKib = -db.pragma('cache_size', { simple: true });
  const io1 = procIo();
  const rowsAfter = count();
  // Which B-tree each WAL frame wrote (frame header: page number; dbstat reads through the WAL).
  const wal = file + '-wal';
  const frameBytes = pageSize + 24;
  const frames = (statSync(wal).size - 32) / frameBytes;
  const pageOf = new Map(db.prepare('SELECT pageno, name FROM dbstat').raw().all());
  const byTree = {};
  const distinct = new Set();
  const fd = openSync(wal, 'r');
  const header = Buffer.alloc(4);
  for (let f = 0; f < frames; f++) {
    readSync(fd, header, 0, 4, 32 + f * frameBytes);
    const page = header.readUInt32BE(0);
    const tree = pageOf.get(page) ?? '(free or gone)';
    const entry = (byTree[tree] ??= { frames: 0, pages: new Set() });
    entry.frames++;
    entry.pages.add(page);
    distinct.add(page);
  }
  closeSync(fd);
  const io2 = procIo();
  const cpu2 = process.cpuUsage();
  const t2 = performance.now();
  db.pragma('wal_checkpoint(TRUNCATE)');
  const checkpointWallMs = performance.now() - t2;
  const cpu3 = process.cpuUsage(cpu2);
  const io3 = procIo();
  // Entries each index gained: its table's rows (a partial index: counted by its WHERE).
  const added = Object.fromEntries(tables.map((t) => [t, rowsAfter[t] - rowsBefore[t]]));
  const treeSizes = Object.fromEntries(
    db.prepare('SELECT name, COUNT(*) AS pages FROM dbstat GROUP BY name').raw().all(),
  );
  db.close();
  const perPage = (x) => +(x / NEW).toFixed(2);
  const kb = (x) => +(x / NEW / 1024).toFixed(1);
  const trees = Object.entries(byTree)
    .map(([name, e]) => ({ name, frames: e.frames, pages: e.pages.size, tree_pages: treeSizes[name] ?? 0 }))
    .sort((a, b) => b.frames - a.frames);
  return {
    pages_new: NEW,
    txn_items: TXN,
    batch_items: BATCH,
    page_size: pageSize,
    rows_added_per_page: Object.fromEntries(Object.entries(added).map(([t, n]) => [t, perPage(n)])),
    index_entries_added_per_page: +(indexes.reduce((n, i) => n + (added[i.t] ?? 0), 0) / NEW).toFixed(1),
    wal_frames_per_page: perPage(frames),
    wal_distinct_pages_per_page: perPage(distinct.size),
    wal_kb_per_page: kb(frames * frameBytes),
    write_rchar_kb_per_page: kb(io1.rchar - io0.rchar),
    write_wchar_kb_per_page: kb(io1.wchar - io0.wchar),
    checkpoint_wchar_kb_per_page: kb(io3.wchar - io2.wchar),
    checkpoint_rchar_kb_per_page: kb(io3.rchar - io2.rchar),
    write_cpu_ms_per_page: +((cpu1.user + cpu1.system) / 1000 / NEW).toFixed(3),
    write_cpu_user_sys_ms: [Math.round(cpu1.user / 1000), Math.round(cpu1.system / 1000)],
    write_minor_faults_per_page: perPage(faults1.minorPageFault - faults0.minorPageFault),
    writer_cache_mib: Math.round(cacheKib / 1024),
    cache: COLD ? 'cold, 64 MiB' : 'fitted and warm',
    checkpoint_cpu_ms_per_page: +((cpu3.user + cpu3.system) / 1000 / NEW).toFixed(3),
    write_wall_ms_per_page: +(writeWallMs / NEW).toFixed(3),
    checkpoint_wall_ms_per_page: +(checkpointWallMs / NEW).toFixed(3),
    by_btree: trees.map((t) => `${t.name}: ${t.frames} frames, ${t.pages} pages of ${t.tree_pages}`),
  };
}

async function main() {
  if (process.argv.includes('--child')) {
    const result = await measure(argOf('--child'));
    process.send(result);
    return;
  }
  const out = {
    root: ROOT,
    machine: `${cpus().length} cores, ${cpus()[0]?.model ?? 'cpu'}`,
    node: process.version,
    started: new Date().toISOString(),
    sizes: [],
  };
  for (const n of SIZES) {
    const base = await baseGraph(n);
    for (let rep = 0; rep < REPS; rep++) {
      const copy = join(dirname(base), `measure-${n}.sqlite`);
      copyFileSync(base, copy);
      const loadBefore = load();
      const child = fork(fileURLToPath(import.meta.url), [...process.argv.slice(2), '--child', copy], {
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      const result = await new Promise((resolve, reject) => {
        child.on('message', resolve);
        child.on('exit', (code) => (code === 0 ? undefined : reject(new Error(`child exited ${code}`))));
      });
      for (const ext of ['', '-wal', '-shm']) rmSync(copy + ext, { force: true });
      const entry = {
        size: n,
        rep,
        base_mb: Math.round(statSync(base).size / 1048576),
        load: [loadBefore, load()],
        ...result,
      };
      out.sizes.push(entry);
      log(`size ${n} rep ${rep}: ${JSON.stringify(entry)}`);
    }
  }
  out.ended = new Date().toISOString();
  console.log(JSON.stringify(out, null, 2));
}

await main();
