#!/usr/bin/env node
// Ingest throughput: signed batches of 500 realistic items (2 to 20 KB of HTML) over loopback
// HTTP into the real `nodectl serve`, versus a raw node:http + SQLite baseline fed the same bytes.
// The figure is acceptance (validated, durable in the inbox, job enqueued), as a connector sees it:
// each accepted batch enqueues a content.ingest job that the daemon starts at once, so the first
// push and the re-push right after it run while the graph builds ("busy"). Then, with the graph
// idle: the same re-push, and new items sent a pair of batches at a time, each pair once no
// content.ingest job is queued or running (docs/performance.md, issue 40 item 3).
import { fork, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, cpus } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer } from 'node:http';
import { Agent, request } from 'undici';
import { signedBatchSender } from './lib/signed-push.mjs';
import { seedBenchSite } from './lib/seed-site.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(ROOT, 'bin', 'nodectl');
const BATCHES = Number(process.env.BENCH_BATCHES ?? 20);
const BATCH_SIZE = 500;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 2);
/** Batches of new items sent with the graph idle (a pair at a time, waiting for the graph in between). */
const IDLE_BATCHES = Number(process.env.BENCH_IDLE_BATCHES ?? 8);

if (process.argv[2] === '--baseline-server') await baselineServer(process.argv[3]);
else await main();

/** The baseline: parse the JSON, insert every item in one transaction, answer. Nothing else. */
async function baselineServer(dir) {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(join(dir, 'baseline.sqlite'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec(`CREATE TABLE raw_items (raw_content_id TEXT PRIMARY KEY, item_type TEXT NOT NULL, item_id TEXT NOT NULL, checksum TEXT NOT NULL, url TEXT NOT NULL,
    body TEXT, received_at TEXT NOT NULL, UNIQUE (item_type, item_id))`);
  const insert = db.prepare('INSERT OR REPLACE INTO raw_items VALUES (?, ?, ?, ?, ?, ?, ?)');
  let n = 0;
  const write = db.transaction((items) => {
    const at = new Date().toISOString();
    for (const item of items)
      insert.run(`raw_${++n}`, item.type, item.id, item.checksum, item.url, JSON.stringify(item), at);
  });
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      write(body.items);
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ ok: true, data: { accepted: body.items.length } }));
    });
  });
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
}

function words(n, seed) {
  const vocab = [
    'river',
    'mountain',
    'coffee',
    'ceramic',
    'handmade',
    'delivery',
    'guarantee',
    'warranty',
    'organic',
    'recipe',
    'weekend',
    'workshop',
    'booking',
    'price',
    'colour',
    'size',
  ];
  let s = seed;
  const out = [];
  for (let i = 0; i < n; i++) {
    s = (s * 1103515245 + 12345) % 2147483648;
    out.push(vocab[s % vocab.length]);
  }
  return out.join(' ');
}

/** A page of 2 to 20 KB of HTML: headings, paragraphs, a list, JSON-LD. */
function makeItems(computeItemChecksum, count) {
  const items = [];
  for (let i = 0; i < count; i++) {
    const targetBytes = 2048 + ((i * 7919) % (18 * 1024));
    let html = `<!doctype html><html><head><title>Page ${i}</title><meta name="description" content="${words(12, i)}"><script type="application/ld+json">{"@type":"Product","name":"Item ${i}","offers":{"price":"${(i % 90) + 9}.00","priceCurrency":"EUR"}}</script></head><body><h1>Item ${i}</h1>`;
    let p = 0;
    while (html.length < targetBytes)
      ((html += `<h2>Section ${p}</h2><p>${words(60, i * 31 + p)}</p><ul><li>${words(5, p)}</li><li>${words(6, p + 1)}</li></ul>`),
        p++);
    html += '</body></html>';
    const base = {
      type: 'page',
      id: `page:${i}`,
      url: `https://bench.example.com/p/${i}`,
      title: `Item ${i}`,
      html,
      language: 'en',
    };
    items.push({ ...base, checksum: computeItemChecksum(base) });
  }
  return items;
}

/** CPU ms (user + system) a child has used so far, from /proc (Linux); null elsewhere. Less noisy than wall time on a shared machine. */
function cpuMsOf(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return null;
  }
}

/**
 * Runs one phase and adds CPU ms per batch to its figures: the server child's, and this client's
 * own (signing and sending share the machine's cores with the server). `gate`: see drive().
 */
async function phase(pid, bodies, send, gate) {
  const before = cpuMsOf(pid);
  const clientBefore = process.cpuUsage();
  const result = await drive(bodies, send, gate, pid);
  const after = cpuMsOf(pid);
  const client = process.cpuUsage(clientBefore);
  // Gated: the server's CPU while the requests ran, not while the graph built between them.
  const serverMs = gate ? result.cpuMs : after - before;
  return {
    ...result,
    cpuMsPerBatch: before === null || after === null ? null : serverMs / bodies.length,
    clientCpuMsPerBatch: (client.user + client.system) / 1000 / bodies.length,
  };
}

function pct(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/**
 * Sends bodies with `CONCURRENCY` in flight; returns wall time and per-request latencies. With
 * `before`, sends `CONCURRENCY` at a time and awaits `before()` ahead of each group, outside the
 * wall time (which is then the sum of the groups' times).
 */
async function drive(bodies, send, before, pid) {
  const lat = [];
  let next = 0;
  let wall = 0;
  let cpuMs = 0;
  while (next < bodies.length) {
    if (before) await before();
    const t0 = performance.now();
    const cpu0 = cpuMsOf(pid);
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < bodies.length) {
          const i = next++;
          const t = performance.now();
          await send(bodies[i], i);
          lat.push(performance.now() - t);
          if (before) return;
        }
      }),
    );
    wall += performance.now() - t0;
    cpuMs += cpuMsOf(pid) - cpu0;
  }
  lat.sort((a, b) => a - b);
  return { wallMs: wall, cpuMs, p50: pct(lat, 50), p99: pct(lat, 99) };
}

/** content.ingest jobs queued or running in the daemon's control.sqlite (read-only). */
async function ingestJobsOpen(dir) {
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(join(dir, 'control.sqlite'), { readonly: true, fileMustExist: true });
  try {
    return db
      .prepare("SELECT count(*) AS n FROM jobs WHERE kind = 'content.ingest' AND state IN ('queued', 'running')")
      .get().n;
  } finally {
    db.close();
  }
}

/** Resolves once no content.ingest job is queued or running (polled: the bench sees only the files). */
async function graphIdle(dir) {
  while ((await ingestJobsOpen(dir)) > 0) await new Promise((r) => setTimeout(r, 100));
}

async function main() {
  const client = await import(join(ROOT, 'dist', 'sdk', 'client', 'index.js'));
  const { computeItemChecksum } = client;
  const dir = mkdtempSync(join(tmpdir(), 'nodectl-bench-ingest-'));
  const children = [];
  try {
    const { site, connector: conn } = seedBenchSite({
      bin: BIN,
      dataDir: dir,
      domain: 'bench.example.com',
      name: 'Bench',
      sourceTypes: ['page'],
    });

    const daemon = spawn(
      'node',
      [
        ...(process.env.BENCH_DAEMON_NODE_ARGS ? process.env.BENCH_DAEMON_NODE_ARGS.split(' ') : []),
        BIN,
        '--data-dir',
        dir,
        'serve',
        '--host',
        '127.0.0.1',
        '--port',
        '0',
      ],
      {
        env: { ...process.env, NODECTL_LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    children.push(daemon);
    if (process.env.BENCH_DAEMON_LOG)
      daemon.stderr.pipe((await import('node:fs')).createWriteStream(process.env.BENCH_DAEMON_LOG));
    const url = await new Promise((resolve, reject) => {
      let out = '';
      const t = setTimeout(() => reject(new Error('daemon did not start:\n' + out)), 20000);
      daemon.stderr.on('data', (c) => {
        out += c;
        const m = /listening on (http:\/\/\S+)/.exec(out);
        if (m) {
          clearTimeout(t);
          resolve(m[1]);
        }
      });
    });

    const items = makeItems(computeItemChecksum, BATCHES * BATCH_SIZE);
    const bodiesOf = (list) => {
      const out = [];
      for (let b = 0; b * BATCH_SIZE < list.length; b++)
        out.push(
          Buffer.from(
            JSON.stringify({
              website_id: site.id,
              partial: true,
              items: list.slice(b * BATCH_SIZE, (b + 1) * BATCH_SIZE),
            }),
          ),
        );
      return out;
    };
    const bodies = bodiesOf(items);
    // New ids with the same pages, for the accepted figure with the graph idle.
    const idleBodies = bodiesOf(
      items.slice(0, IDLE_BATCHES * BATCH_SIZE).map((it) => ({ ...it, id: 'idle:' + it.id })),
    );
    const totalBytes = bodies.reduce((n, b) => n + b.length, 0);
    const agent = new Agent({ connections: CONCURRENCY, pipelining: 1 });
    let accepted = 0,
      skipped = 0;
    const send = signedBatchSender({
      client,
      url,
      token: conn.token,
      websiteId: site.id,
      agent,
      headers: { 'x-site-domain': 'bench.example.com' },
    });
    const sendSigned = async (body) => {
      const data = await send(body);
      accepted += data.accepted;
      skipped += data.skipped;
    };
    // Warm-up on a different id space so the measured run inserts only new rows.
    const warm = makeItems(computeItemChecksum, BATCH_SIZE).map((it) => ({
      ...it,
      id: 'warm:' + it.id,
      checksum: it.checksum,
    }));
    await sendSigned(Buffer.from(JSON.stringify({ website_id: site.id, items: warm })));
    accepted = 0;

    await graphIdle(dir);
    accepted = 0;

    // While the graph builds: the first push enqueues the jobs, and the re-push follows at once.
    const jobsAt = { accepted_start: await ingestJobsOpen(dir) };
    const pushedAt = performance.now();
    const first = await phase(daemon.pid, bodies, sendSigned);
    const acceptedCount = accepted;
    jobsAt.accepted_end = jobsAt.unchanged_start = await ingestJobsOpen(dir);
    const again = await phase(daemon.pid, bodies, sendSigned);
    const skippedCount = skipped;
    jobsAt.unchanged_end = await ingestJobsOpen(dir);
    // With the graph idle: the same re-push once every job is done, then new items a pair at a time.
    const graphMs = performance.now();
    await graphIdle(dir);
    const graphWaitMs = performance.now() - graphMs;
    const graphDoneMs = performance.now() - pushedAt;
    skipped = 0;
    const againIdle = await phase(daemon.pid, bodies, sendSigned);
    const skippedIdle = skipped;
    accepted = 0;
    const firstIdle = await phase(daemon.pid, idleBodies, sendSigned, () => graphIdle(dir));
    const acceptedIdle = accepted;

    await graphIdle(dir);
    const baseline = fork(fileURLToPath(import.meta.url), ['--baseline-server', dir], { stdio: 'inherit' });
    children.push(baseline);
    const { port } = await new Promise((resolve) => baseline.once('message', resolve));
    const sendRaw = async (body) => {
      const res = await request(`http://127.0.0.1:${port}/`, {
        method: 'POST',
        dispatcher: agent,
        body,
        headers: { 'content-type': 'application/json' },
      });
      await res.body.json();
    };
    await sendRaw(Buffer.from(JSON.stringify({ items: warm })));
    const raw = await phase(baseline.pid, bodies, sendRaw);

    const n = items.length;
    const rateOf = (r, count) => Math.round(count / (r.wallMs / 1000));
    const rate = (r) => rateOf(r, n);
    const figures = (r, count = n) => ({
      items_per_s: rateOf(r, count),
      p50_ms: +r.p50.toFixed(1),
      p99_ms: +r.p99.toFixed(1),
      server_cpu_ms_per_batch: r.cpuMsPerBatch === null ? null : +r.cpuMsPerBatch.toFixed(1),
      client_cpu_ms_per_batch: +r.clientCpuMsPerBatch.toFixed(1),
    });
    const report = {
      machine: `${cpus().length} cores, ${cpus()[0]?.model ?? 'cpu'}`,
      node: process.version,
      items: n,
      batches: BATCHES,
      batch_size: BATCH_SIZE,
      concurrency: CONCURRENCY,
      avg_item_html_kb: +(totalBytes / n / 1024).toFixed(1),
      payload_mb: +(totalBytes / 1048576).toFixed(1),
      content_ingest_jobs_open: jobsAt,
      graph_busy_after_repush_ms: Math.round(graphWaitMs),
      // The graph's pace beside the pushes: from the first push's start until no job is open.
      graph_done_ms_from_first_push: Math.round(graphDoneMs),
      accepted: { items: acceptedCount, ...figures(first) },
      unchanged_repush: { skipped: skippedCount, ...figures(again) },
      graph_idle: {
        accepted: { items: acceptedIdle, ...figures(firstIdle, idleBodies.length * BATCH_SIZE) },
        unchanged_repush: { skipped: skippedIdle, ...figures(againIdle) },
      },
      raw_baseline: figures(raw),
      ratio_accepted_vs_raw: +(rate(first) / rate(raw)).toFixed(2),
      ratio_unchanged_vs_raw: +(rate(again) / rate(raw)).toFixed(2),
      ratio_idle_accepted_vs_raw: +(rateOf(firstIdle, idleBodies.length * BATCH_SIZE) / rate(raw)).toFixed(2),
      ratio_idle_unchanged_vs_raw: +(rate(againIdle) / rate(raw)).toFixed(2),
      targets: {
        accepted_ge_10000: rate(first) >= 10000,
        ratio_ge_0_5: rate(first) / rate(raw) >= 0.5,
        unchanged_ratio_ge_0_5: rate(again) / rate(raw) >= 0.5,
        unchanged_ge_30000: rate(again) >= 30000,
      },
    };
    console.log(JSON.stringify(report, null, 2));
    await agent.close();
  } finally {
    for (const c of children) c.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    rmSync(dir, { recursive: true, force: true });
  }
}
