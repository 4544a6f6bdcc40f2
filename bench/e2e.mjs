#!/usr/bin/env node
// End to end, from first push to live node: 10,000 generated product and post pages (the pages
// of bench/graph.mjs) pushed over signed HTTP (the reference client's signer, 500 items a batch,
// 2 requests in flight) to the real `nodectl serve` on loopback, turned into the graph by its
// content.ingest jobs, then compiled and published to the fs target (POST /v1/websites/:id/publish)
// and read back live from the daemon (GET {node_base_url}/{domain}/manifest.json). Reports the
// wall time of each stage from the first push, items/s from first push to graph complete (compare
// with bench/graph.mjs's pipeline) and from first push to live node, and the CPU each stage used
// (the machine's and the daemon's, cores busy on average), with the items/s the daemon's CPU
// work would allow if every core were busy the whole time: what more threads alone could reach;
// the CPU time of each of the daemon's threads per stage, by name (Linux), with the time each
// waited for a core; and the daemon's peak resident memory up to the live node.
// Then the same 10,000 items are pushed again unchanged (every one skipped, unchanged_checksum),
// three times, alternating with a raw baseline fed the same signed bodies: a plain node:http
// server that hashes (sha256) and parses each body and answers; the fastest of each is reported
// (a shared machine's bursts of load). The timed part starts once the started daemon is idle (its
// warm start done, as for a daemon connectors push to); --no-settle pushes at once. Usage:
//   npm run build && node bench/e2e.mjs [--items N] [--no-settle] [--root DIR]
// BENCH_DAEMON_NODE_ARGS adds node flags to the daemon (e.g. --cpu-prof --cpu-prof-dir=/tmp/prof).
// --root DIR runs another build: DIR's bin/nodectl and dist/ (a copy of this folder's bin/, dist/
// and package.json, with a node_modules link), so two builds can be compared in one session,
// alternating, with this one bench script (docs/performance.md).
import { fork } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve as resolvePath } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { startBenchDaemon } from './lib/daemon.mjs';
import { signedBatchSender } from './lib/signed-push.mjs';
import { seedBenchSite } from './lib/seed-site.mjs';
import { pendingItemsCounter } from './lib/pending-items.mjs';
import { clockTicksPerSecond, cpuSnapshot, daemonPeakRssMb, settle } from './lib/proc.mjs';
import { kettlePage } from './lib/kettle-pages.mjs';

const rootArg = process.argv.indexOf('--root');
const ROOT = rootArg > 0 ? resolvePath(process.argv[rootArg + 1]) : join(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(ROOT, 'bin', 'nodectl');
const arg = process.argv.indexOf('--items');
const N = arg > 0 ? Number(process.argv[arg + 1]) : 10_000;
const SETTLE = !process.argv.includes('--no-settle');
const BATCH = 500;
const CONCURRENCY = 2;
const REPUSH_REPS = 3;
const DOMAIN = 'e2e.example';

if (process.argv[2] === '--baseline-server') baselineServer();
else await main();

/** The raw baseline of a re-push: receive the body, hash it, parse it, answer. Nothing else. */
function baselineServer() {
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      createHash('sha256').update(raw).digest('hex');
      const body = JSON.parse(raw.toString('utf8'));
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ ok: true, data: { skipped: body.items.length } }));
    });
  });
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
}

/**
 * The daemon's threads, read every 100 ms and at each stage's end (Linux: /proc/<pid>/task): each
 * thread's name (the daemon names its workers, src/platform/threads/thread-name.ts; "node" is V8's and
 * libuv's), its CPU time and its time spent runnable but waiting for a core (schedstat). report()
 * gives both per stage, summed by name: where the cores went. A thread that ends between two
 * reads (a publish's helpers) loses at most its last 100 ms. Null where /proc does not tell.
 */
function threadSampler(pid) {
  const samples = [];
  const read = () => {
    const threads = new Map();
    try {
      for (const tid of readdirSync(`/proc/${pid}/task`)) {
        try {
          const [cpuNs, waitNs] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ').map(Number);
          const name =
            tid === String(pid) ? 'main (event loop)' : readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
          threads.set(tid, { name, cpu: cpuNs / 1e6, wait: waitNs / 1e6 });
        } catch {
          /* the thread ended meanwhile */
        }
      }
    } catch {
      /* not Linux */
    }
    samples.push(threads);
    return samples.length - 1;
  };
  const marks = [read()];
  const timer = setInterval(read, 100);
  timer.unref(); // a run that fails before stop() still ends
  return {
    mark: () => void marks.push(read()),
    stop: () => clearInterval(timer),
    /** { stage: { thread name: { cpu_ms, waiting_for_a_core_ms } } } between the marks. */
    report(stageNames) {
      if (samples[0].size === 0) return null;
      // A thread's figures as of sample `at`: its last read at or before it (0 before its first).
      const asOf = (tid, at) => {
        for (let i = at; i >= 0; i--) if (samples[i].has(tid)) return samples[i].get(tid);
        return { cpu: 0, wait: 0 };
      };
      return Object.fromEntries(
        stageNames.map((stage, i) => {
          const byName = {};
          const tids = new Set(samples.slice(marks[i], marks[i + 1] + 1).flatMap((m) => [...m.keys()]));
          for (const tid of tids) {
            const [from, to] = [asOf(tid, marks[i]), asOf(tid, marks[i + 1])];
            const sum = (byName[to.name] ??= { cpu_ms: 0, waiting_for_a_core_ms: 0 });
            sum.cpu_ms += to.cpu - from.cpu;
            sum.waiting_for_a_core_ms += to.wait - from.wait;
          }
          const rounded = Object.entries(byName).map(([name, v]) => [
            name,
            { cpu_ms: Math.round(v.cpu_ms), waiting_for_a_core_ms: Math.round(v.waiting_for_a_core_ms) },
          ]);
          return [
            stage,
            Object.fromEntries(rounded.filter(([, v]) => v.cpu_ms > 0).sort((a, b) => b[1].cpu_ms - a[1].cpu_ms)),
          ];
        }),
      );
    },
  };
}

/**
 * CPU per stage and from first push to live node: how many cores were busy on average, and the
 * wall time the same CPU work would take with every core busy the whole time (CPU / cores), the
 * bound that spreading this work over more threads cannot pass.
 */
function cpuReport(snapshots, stages, rate) {
  const cores = cpus().length;
  const used = (from, to, key) =>
    snapshots[to][key] === null ? null : Math.round(snapshots[to][key] - snapshots[from][key]);
  const perStage = Object.fromEntries(
    stages.map(([name, wallMs], i) => {
      const machine = used(i, i + 1, 'machine');
      return [
        name,
        {
          wall_ms: Math.round(wallMs),
          machine_cpu_ms: machine,
          daemon_cpu_ms: used(i, i + 1, 'daemon'),
          cores_busy: +(machine / wallMs).toFixed(2),
        },
      ];
    }),
  );
  const last = snapshots.length - 1;
  const wallMs = stages.reduce((sum, [, ms]) => sum + ms, 0);
  const machine = used(0, last, 'machine');
  const daemon = used(0, last, 'daemon');
  const allCoresMs = Math.round((daemon ?? machine) / cores);
  return {
    cores,
    stages: perStage,
    first_push_to_live: {
      machine_cpu_ms: machine,
      daemon_cpu_ms: daemon,
      bench_cpu_ms: used(0, last, 'bench'),
      cores_busy: +(machine / wallMs).toFixed(2),
      daemon_cpu_on_every_core_ms: allCoresMs,
      items_per_s_if_every_core_were_busy: rate(allCoresMs),
    },
  };
}

/** A generated page (bench/lib/kettle-pages.mjs) with its checksum as the reference client computes it. */
function page(i, computeItemChecksum) {
  const base = kettlePage(i, DOMAIN);
  return { ...base, checksum: computeItemChecksum(base) };
}

function startDaemon(dataDir) {
  return startBenchDaemon(dataDir, {
    bin: BIN,
    nodeArgs: process.env.BENCH_DAEMON_NODE_ARGS ? process.env.BENCH_DAEMON_NODE_ARGS.split(' ') : [],
  });
}

/** Sends every body with CONCURRENCY requests in flight; returns the sum of each answer's counts. */
async function sendAll(bodies, send) {
  let next = 0;
  const totals = { accepted: 0, skipped: 0, errored: 0 };
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < bodies.length) {
        const data = await send(bodies[next++]);
        for (const k of Object.keys(totals)) totals[k] += data[k] ?? 0;
      }
    }),
  );
  return totals;
}

async function main() {
  const client = await import(join(ROOT, 'dist', 'sdk', 'client', 'index.js'));
  const { computeItemChecksum, signRequest } = client;
  const { dataDirLayout, graphDbPath } = await import(join(ROOT, 'dist', 'platform', 'storage', 'data-dir.js'));
  const dataDir = mkdtempSync(join(tmpdir(), 'nodectl-bench-e2e-'));
  const children = [];
  const agent = new Agent({ connections: CONCURRENCY, pipelining: 1 });
  try {
    const {
      site,
      connector: conn,
      keys: [apiKey],
    } = seedBenchSite({
      bin: BIN,
      dataDir,
      domain: DOMAIN,
      name: 'E2E',
      email: 'e2e@example.com',
      sourceTypes: ['post', 'product'],
      keyRoles: ['editor'],
    });
    const daemon = await startDaemon(dataDir);
    children.push(daemon.child);

    const items = Array.from({ length: N }, (_, i) => page(i, computeItemChecksum));
    const bodies = [];
    for (let b = 0; b < N; b += BATCH)
      bodies.push(
        Buffer.from(JSON.stringify({ website_id: site.id, partial: true, items: items.slice(b, b + BATCH) })),
      );
    const sendSigned = signedBatchSender({
      client,
      url: daemon.url,
      token: conn.token,
      websiteId: site.id,
      agent,
    });
    const signingKey = client.deriveSigningKey(client.parseConnectorToken(conn.token).secret, site.id);

    // 1. Push, 2. content.ingest (the daemon's jobs run while the pushes go on), 3. publish, 4. live.
    const ticks = clockTicksPerSecond();
    const settleMs = SETTLE ? await settle(daemon.child.pid, ticks) : null;
    const cpuAt = [cpuSnapshot(daemon.child.pid, ticks)];
    const threads = threadSampler(daemon.child.pid);
    const t0 = performance.now();
    const pushed = await sendAll(bodies, sendSigned);
    const pushMs = performance.now() - t0;
    cpuAt.push(cpuSnapshot(daemon.child.pid, ticks));
    threads.mark();
    // The graph file exists once the first batch is accepted. Done when nothing is left in the
    // inbox nor pending (indexes only: the poll must not read the bodies). Every 10 ms: the
    // stage's end is known to within 10 ms (each count costs microseconds).
    const pending = pendingItemsCounter(graphDbPath(dataDirLayout(dataDir), site.id));
    while (pending.count() > 0) await new Promise((r) => setTimeout(r, 10));
    const state = pending.graph
      .prepare(`SELECT SUM(state = 'processed') AS processed, SUM(state = 'failed') AS failed FROM raw_items`)
      .get();
    const ingestedMs = performance.now() - t0;
    cpuAt.push(cpuSnapshot(daemon.child.pid, ticks));
    threads.mark();
    const published = await request(`${daemon.url}/v1/websites/${site.id}/publish`, {
      method: 'POST',
      dispatcher: agent,
      headers: { authorization: `Bearer ${apiKey}` },
    });
    const publishEnvelope = await published.body.json();
    if (published.statusCode !== 200)
      throw new Error(`publish answered ${published.statusCode}: ${JSON.stringify(publishEnvelope)}`);
    const publishedMs = performance.now() - t0;
    const manifestRes = await request(`${daemon.url}/nodes/${DOMAIN}/manifest.json`, { dispatcher: agent });
    const manifest = await manifestRes.body.json();
    if (manifestRes.statusCode !== 200 || manifest.node_version !== publishEnvelope.data.versionUlid) {
      throw new Error(
        `the live manifest (${manifestRes.statusCode}, ${manifest.node_version}) is not the published version ${publishEnvelope.data.versionUlid}`,
      );
    }
    const liveMs = performance.now() - t0;
    cpuAt.push(cpuSnapshot(daemon.child.pid, ticks));
    threads.mark();
    threads.stop();
    const peakRssMb = daemonPeakRssMb(daemon.child.pid);

    // The same items again, unchanged, alternating with the raw baseline on the same bodies, REPUSH_REPS times: the fastest of each.
    const baseline = fork(fileURLToPath(import.meta.url), ['--baseline-server'], { stdio: 'inherit' });
    children.push(baseline);
    const { port } = await new Promise((resolve) => baseline.once('message', resolve));
    const sendRaw = async (body) => {
      const headers = signRequest({
        token: conn.token,
        websiteId: site.id,
        path: '/v1/ingest/batch',
        body,
        signingKey,
      });
      const res = await request(`http://127.0.0.1:${port}/`, {
        method: 'POST',
        dispatcher: agent,
        body,
        headers: { ...headers, 'content-type': 'application/json' },
      });
      return (await res.body.json()).data;
    };
    await sendAll(bodies.slice(0, 2), sendRaw);
    const repushes = [],
      baselines = [];
    let repushed;
    for (let rep = 0; rep < REPUSH_REPS; rep++) {
      const r0 = performance.now();
      repushed = await sendAll(bodies, sendSigned);
      repushes.push(performance.now() - r0);
      const b0 = performance.now();
      await sendAll(bodies, sendRaw);
      baselines.push(performance.now() - b0);
    }
    const repushMs = Math.min(...repushes);
    const baselineMs = Math.min(...baselines);
    pending.close();

    const rate = (ms) => Math.round((N / ms) * 1000);
    const report = {
      machine: `${cpus().length} cores, ${cpus()[0]?.model ?? 'cpu'}, load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
      node: process.version,
      items: N,
      batch: BATCH,
      concurrency: CONCURRENCY,
      daemon_settle_ms: settleMs,
      payload_mb: +(bodies.reduce((n, b) => n + b.length, 0) / 1048576).toFixed(1),
      stages_ms_from_first_push: {
        pushed: Math.round(pushMs),
        ingested: Math.round(ingestedMs),
        published: Math.round(publishedMs),
        live: Math.round(liveMs),
      },
      stage_ms: {
        push: Math.round(pushMs),
        ingest_after_push: Math.round(ingestedMs - pushMs),
        publish: Math.round(publishedMs - ingestedMs),
        live_read: Math.round(liveMs - publishedMs),
      },
      accepted: pushed.accepted,
      processed: state.processed,
      failed: state.failed ?? 0,
      published_files: publishEnvelope.data.files.length,
      published_records: publishEnvelope.data.recordCount,
      live_version: manifest.node_version,
      push_items_per_s: rate(pushMs),
      graph_items_per_s: rate(ingestedMs),
      end_to_end_items_per_s: rate(liveMs),
      daemon_peak_rss_mb: peakRssMb,
      cpu: cpuReport(
        cpuAt,
        [
          ['push', pushMs],
          ['ingest_after_push', ingestedMs - pushMs],
          ['publish_and_live_read', liveMs - ingestedMs],
        ],
        rate,
      ),
      threads: threads.report(['push', 'ingest_after_push', 'publish_and_live_read']),
      unchanged_repush: {
        skipped: repushed.skipped,
        accepted: repushed.accepted,
        items_per_s: rate(repushMs),
        wall_ms: Math.round(repushMs),
        all_wall_ms: repushes.map(Math.round),
      },
      raw_baseline_repush: {
        items_per_s: rate(baselineMs),
        wall_ms: Math.round(baselineMs),
        all_wall_ms: baselines.map(Math.round),
      },
      ratio_repush_vs_baseline: +(baselineMs / repushMs).toFixed(2),
      targets: { end_to_end_ge_1500: rate(liveMs) >= 1500, unchanged_repush_ge_30000: rate(repushMs) >= 30_000 },
    };
    console.log(JSON.stringify(report, null, 2));
  } finally {
    await agent.close();
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(children.map((c) => (c.exitCode === null ? new Promise((r) => c.once('exit', r)) : undefined)));
    rmSync(dataDir, { recursive: true, force: true });
  }
}
