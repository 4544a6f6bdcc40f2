#!/usr/bin/env node
// Scale (issue 40): does the cost of push → graph → publish → live grow with the site, not faster?
// For each size (--sizes, default 10000,100000) a fresh data directory and a real `nodectl serve`
// on loopback (each size in a process of its own, so the bench's own peak memory is per size):
//  - a generated site (bench/lib/site-pages.mjs: products, posts, FAQs, events, stores, docs and
//    plain pages, 1 to 40 KB, JSON-LD and Microdata) written to a file of signed-ready batch bodies
//    before the timed part (a million pages do not fit the bench's memory), then pushed over signed
//    HTTP (500 items a batch, 2 requests in flight) as bench/e2e.mjs does;
//  - stages timed from the first push: push (every batch acknowledged), graph (nothing left in the
//    inbox nor pending: the content.ingest jobs done), publish (POST /v1/websites/:id/publish
//    answered), live (the new version's manifest.json read from /nodes); each also per item;
//  - per stage, the daemon's threads by name: time on a core and waiting for one (threadClock);
//  - the daemon's peak RSS (VmHWM) after each stage (after_reads: before the republish; its
//    resident memory while the republish runs is during_republish), the bench process's peak RSS, the graph
//    database's bytes (file and WAL) and the node's bytes (the manifest's files and itself);
//  - reads at size (issue 40 item 4), one request at a time over HTTP with a viewer key: knowledge
//    search over --queries queries (common, mid and rare words, two words, a prefix) and entity
//    facts of --queries sampled entities, p50/p99; then node files from /nodes (manifest, ai.json,
//    llms.txt, versions.json, priority-feed.jsonl, schema.jsonld, in turn) idle and while a forced
//    republish of the same graph runs, p50/p99/max (of the 200 answers; the statuses are counted).
// Then a growth table: per-item time at the largest size ÷ at the smallest, per stage. With
// --rounds R every size runs R times, the sizes' order reversed each round so that a machine
// slowing down or warming up weighs on both; growth is then the ratio of the sizes' medians (a
// 10,000-page stage lasts seconds, and one run of it swung by a third between runs).
// Progress goes to stderr (a million pages take a while); the report, JSON, to stdout.
// Usage: npm run build && node bench/scale.mjs [--sizes 10000,100000] [--rounds R] [--queries Q] [--keep]
// BENCH_DAEMON_NODE_ARGS adds node flags to the daemon (e.g. --cpu-prof --cpu-prof-dir=/tmp/prof).
// --keep leaves each size's data directory in place (its path is in the report). --root DIR runs
// another build (DIR's bin/nodectl and dist/, as bench/e2e.mjs's --root): a run of a million pages
// takes hours, and a rebuild of this folder's dist/ meanwhile would change the daemon's code under it.
// The daemon's stderr (warnings and errors) goes to daemon.log in the size's work directory.
import { fork } from 'node:child_process';
import { closeSync, createWriteStream, mkdtempSync, openSync, readSync, rmSync, statSync, writeSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve as resolvePath } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { startBenchDaemon } from './lib/daemon.mjs';
import { signedBatchSender } from './lib/signed-push.mjs';
import { seedBenchSite } from './lib/seed-site.mjs';
import { daemonPeakRssMb, clockTicksPerSecond, settle, threadClock } from './lib/proc.mjs';
import { pendingItemsCounter } from './lib/pending-items.mjs';
import { SITE_SOURCE_TYPES, sitePage } from './lib/site-pages.mjs';
import { VOCAB } from './lib/zipf-items.mjs';

const argOf = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : fallback;
};
const ROOT = resolvePath(argOf('--root', join(dirname(fileURLToPath(import.meta.url)), '..')));
const BIN = join(ROOT, 'bin', 'nodectl');
const SIZES = argOf('--sizes', '10000,100000')
  .split(',')
  .map((s) => Number(s.replace(/_/g, '')));
const QUERIES = Number(argOf('--queries', 200));
const ROUNDS = Number(argOf('--rounds', 1));
const KEEP = process.argv.includes('--keep');
const BATCH = 500;
const CONCURRENCY = 2;
const DOMAIN = 'scale.example';
const NODE_FILES = ['manifest.json', 'ai.json', 'llms.txt', 'versions.json', 'priority-feed.jsonl', 'schema.jsonld'];
const IDLE_READS = 300;

if (SIZES.some((n) => !Number.isInteger(n) || n < BATCH))
  throw new Error(`--sizes takes whole numbers of at least ${BATCH}, comma-separated`);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error('--rounds takes a whole number of at least 1');

const quantile = (xs, q) => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return round(s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]);
};
function round(x, d = 2) {
  return Math.round(x * 10 ** d) / 10 ** d;
}
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
function log(message) {
  process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${message}\n`);
}

/** Runs one size in a process of its own (so the bench's own peak memory is per size). */
async function runSizeInChild(n) {
  const child = fork(
    fileURLToPath(import.meta.url),
    ['--one-size', String(n), '--queries', String(QUERIES), '--root', ROOT, ...(KEEP ? ['--keep'] : [])],
    { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
  );
  return new Promise((resolve, reject) => {
    let got;
    child.on('message', (m) => (got = m));
    child.on('exit', (code) => (got ? resolve(got) : reject(new Error(`size ${n}: the run exited ${code}`))));
  });
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function main() {
  const started = { at: new Date().toISOString(), load: load() };
  const ascending = [...SIZES].sort((a, b) => a - b);
  const results = [];
  for (let r = 1; r <= ROUNDS; r++) {
    for (const n of r % 2 === 1 ? ascending : [...ascending].reverse()) {
      log(`size ${n}${ROUNDS > 1 ? `, round ${r} of ${ROUNDS}` : ''}: starting (load ${load()})`);
      const result = { round: r, ...(await runSizeInChild(n)) };
      results.push(result);
      log(`size ${n}: done (load ${load()})\n${JSON.stringify(result.per_item_ms)}`);
    }
  }
  const stages = Object.keys(results[0].per_item_ms);
  const runsOf = (n) => results.filter((r) => r.items === n);
  // Per size and stage, the median of the rounds' per-item times (with one round, that round's).
  const perItem = new Map(
    ascending.map((n) => [
      n,
      Object.fromEntries(stages.map((st) => [st, round(median(runsOf(n).map((r) => r.per_item_ms[st])), 4)])),
    ]),
  );
  const [smallest, largest] = [ascending[0], ascending[ascending.length - 1]];
  const inRound = (n, r, stage) => results.find((x) => x.items === n && x.round === r).per_item_ms[stage];
  const growth = Object.fromEntries(
    stages.map((stage) => {
      const g = perItem.get(largest)[stage] / perItem.get(smallest)[stage];
      const byRound = Array.from({ length: ROUNDS }, (_, i) =>
        round(inRound(largest, i + 1, stage) / inRound(smallest, i + 1, stage)),
      );
      return [
        stage,
        {
          [`${smallest}_ms_per_item`]: perItem.get(smallest)[stage],
          [`${largest}_ms_per_item`]: perItem.get(largest)[stage],
          growth: round(g),
          within_1_3: g <= 1.3,
          ...(ROUNDS > 1 ? { growth_by_round: byRound } : {}),
        },
      ];
    }),
  );
  const table = [
    `stage            ${ascending.map((n) => String(n).padStart(10)).join('')}   growth (ms per item${ROUNDS > 1 ? `, medians of ${ROUNDS} rounds; by round` : ''})`,
    ...Object.entries(growth).map(
      ([stage, g]) =>
        `${stage.padEnd(17)}${ascending.map((n) => String(perItem.get(n)[stage]).padStart(10)).join('')}   ${g.growth}×${
          g.growth_by_round ? `   ${g.growth_by_round.join(', ')}` : ''
        }`,
    ),
  ].join('\n');
  log(`growth\n${table}`);
  console.log(
    JSON.stringify(
      {
        machine: `${cpus().length} cores, ${cpus()[0]?.model ?? 'cpu'}`,
        node: process.version,
        started,
        finished: { at: new Date().toISOString(), load: load() },
        batch: BATCH,
        concurrency: CONCURRENCY,
        rounds: ROUNDS,
        sizes: results,
        growth,
      },
      null,
      2,
    ),
  );
}

/** A user, a business-plan organization (a million items a month), the website, a connector and two keys. */
function seed(dataDir) {
  const { site, connector, keys } = seedBenchSite({
    bin: BIN,
    dataDir,
    domain: DOMAIN,
    name: 'Scale',
    email: 'scale@example.com',
    sourceTypes: SITE_SOURCE_TYPES,
    keyRoles: ['editor', 'viewer'],
  });
  const [editorKey, viewerKey] = keys;
  return { websiteId: site.id, connectorToken: connector.token, editorKey, viewerKey };
}

/** Writes every batch body of the site to one file; resolves where each starts and how long it is. */
function writeBodies(file, n, websiteId, computeItemChecksum) {
  const fd = openSync(file, 'w');
  const spans = [];
  let at = 0;
  try {
    for (let b = 0; b < n; b += BATCH) {
      const items = [];
      for (let i = b; i < Math.min(n, b + BATCH); i++) {
        const page = sitePage(i, DOMAIN);
        items.push({ ...page, checksum: computeItemChecksum(page) });
      }
      const body = Buffer.from(JSON.stringify({ website_id: websiteId, partial: true, items }));
      writeSync(fd, body, 0, body.length, at);
      spans.push([at, body.length]);
      at += body.length;
      if (spans.length % 200 === 0) log(`  generated ${b + BATCH} pages`);
    }
  } finally {
    closeSync(fd);
  }
  return { spans, bytes: at };
}

const fileBytes = (path) => {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
};

/** One size, start to end, in this process: the figures of the report's `sizes[]`. */
async function runSize(n) {
  const client = await import(join(ROOT, 'dist', 'sdk', 'client', 'index.js'));
  const { computeItemChecksum } = client;
  const { dataDirLayout, graphDbPath } = await import(join(ROOT, 'dist', 'platform', 'storage', 'data-dir.js'));
  const work = mkdtempSync(join(tmpdir(), 'nodectl-bench-scale-'));
  const dataDir = join(work, 'data');
  // No request timeouts: a million-page publish answers after minutes.
  const agent = new Agent({ connections: CONCURRENCY, pipelining: 1, headersTimeout: 0, bodyTimeout: 0 });
  const reader = new Agent({ connections: 1, headersTimeout: 0, bodyTimeout: 0 });
  let daemon;
  let failed = true;
  const loadAt = { start: load() };
  try {
    const ids = seed(dataDir);
    const generateStart = performance.now();
    const bodiesFile = join(work, 'bodies.bin');
    const { spans, bytes: payloadBytes } = writeBodies(bodiesFile, n, ids.websiteId, computeItemChecksum);
    const generateMs = performance.now() - generateStart;
    log(`  ${n} pages generated in ${Math.round(generateMs)} ms (${(payloadBytes / 1048576).toFixed(0)} MB)`);

    // The general limit and the node files' per-address limit would answer the reads 429, and the
    // connector's ingest limit (600 requests a minute) a push of more than about 300,000 pages.
    process.env.NODECTL_RATE_LIMIT_PER_MINUTE = '1000000';
    process.env.NODECTL_INGEST_RATE_LIMIT_PER_MINUTE = '1000000';
    process.env.NODECTL_NODE_RATE_LIMIT_PER_MINUTE = '10000000';
    daemon = await startBenchDaemon(dataDir, {
      bin: BIN,
      nodeArgs: process.env.BENCH_DAEMON_NODE_ARGS ? process.env.BENCH_DAEMON_NODE_ARGS.split(' ') : [],
    });
    const pid = daemon.child.pid;
    daemon.child.stderr.pipe(createWriteStream(join(work, 'daemon.log')));
    const settleMs = await settle(pid, clockTicksPerSecond());
    const send = signedBatchSender({
      client,
      url: daemon.url,
      token: ids.connectorToken,
      websiteId: ids.websiteId,
      agent,
    });
    const fd = openSync(bodiesFile, 'r');
    const readBody = ([at, length]) => {
      const body = Buffer.allocUnsafe(length);
      readSync(fd, body, 0, length, at);
      return body;
    };
    const batchMs = [];
    const totals = { accepted: 0, skipped: 0, errored: 0 };
    const push = async (body) => {
      const t = performance.now();
      const data = await send(body);
      batchMs.push(performance.now() - t);
      for (const k of Object.keys(totals)) totals[k] += data[k] ?? 0;
    };
    const rss = {};

    // 1. Push.
    log(`  pushing ${n} pages (load ${load()})`);
    loadAt.push_start = load();
    // Which thread each stage waited for: the daemon's threads sampled each second.
    const threads = threadClock(pid);
    const threadsByStage = {};
    const threadTick = setInterval(() => threads.sample(), 1000).unref();
    threads.start();
    const t0 = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < spans.length) {
          const b = next++;
          await push(readBody(spans[b]));
          if ((b + 1) % Math.max(1, Math.floor(spans.length / 10)) === 0)
            log(
              `  pushed ${(b + 1) * BATCH} pages, ${Math.round(performance.now() - t0)} ms, daemon peak ${daemonPeakRssMb(pid)} MB`,
            );
        }
      }),
    );
    closeSync(fd);
    const pushMs = performance.now() - t0;
    rss.after_push = daemonPeakRssMb(pid);

    // 2. Graph: nothing left in the inbox nor pending (indexes only: the poll does not read bodies).
    const graphFile = graphDbPath(dataDirLayout(dataDir), ids.websiteId);
    const pending = pendingItemsCounter(graphFile);
    const graph = pending.graph;
    let lastLog = performance.now();
    for (let left; (left = pending.count()) > 0;) {
      if (performance.now() - lastLog > 15_000) {
        log(
          `  graph: ${left} pending, ${Math.round(performance.now() - t0)} ms, daemon peak ${daemonPeakRssMb(pid)} MB`,
        );
        lastLog = performance.now();
      }
      await new Promise((r) => setTimeout(r, n >= 100_000 ? 100 : 20));
    }
    const graphMs = performance.now() - t0;
    threadsByStage.push_and_graph = threads.report(graphMs);
    threads.start();
    log(
      `  threads, push and graph: ${threadsByStage.push_and_graph
        .slice(0, 4)
        .map((t) => `${t.name} ${t.busy_pct}% on a core, ${t.runqueue_s} s waiting for one`)
        .join('; ')}`,
    );
    rss.after_graph = daemonPeakRssMb(pid);
    const graphBytes = { file: fileBytes(graphFile), wal: fileBytes(`${graphFile}-wal`) };
    log(`  graph built at ${Math.round(graphMs)} ms; publishing (load ${load()})`);
    loadAt.publish_start = load();

    // 3. Publish and 4. live.
    const publish = async (body) => {
      const res = await request(`${daemon.url}/v1/websites/${ids.websiteId}/publish`, {
        method: 'POST',
        dispatcher: agent,
        headers: { authorization: `Bearer ${ids.editorKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const envelope = await res.body.json();
      if (res.statusCode !== 200) throw new Error(`publish answered ${res.statusCode}: ${JSON.stringify(envelope)}`);
      return envelope.data;
    };
    // The first publish as a stream of progress events: the daemon's resident memory (VmRSS,
    // every 100 ms) is kept per stage (compile, check, upload...), to tell which one holds it.
    const rssByStage = {};
    const published = await (async () => {
      const res = await request(`${daemon.url}/v1/websites/${ids.websiteId}/publish`, {
        method: 'POST',
        dispatcher: agent,
        headers: {
          authorization: `Bearer ${ids.editorKey}`,
          'content-type': 'application/json',
          accept: 'text/event-stream',
        },
        body: '{}',
      });
      let stage = 'start';
      const sample = () => {
        const mb = daemonPeakRssMb(pid, 'VmRSS');
        if (mb !== null) rssByStage[stage] = Math.max(rssByStage[stage] ?? 0, mb);
      };
      const timer = setInterval(sample, 100);
      let text = '';
      let result;
      try {
        for await (const chunk of res.body) {
          text += chunk;
          for (let end; (end = text.indexOf('\n\n')) >= 0; text = text.slice(end + 2)) {
            const event = /^event: (.*)$/m.exec(text.slice(0, end))?.[1];
            const data = JSON.parse(/^data: (.*)$/m.exec(text.slice(0, end))?.[1] ?? 'null');
            if (event === 'progress') (sample(), (stage = data.stage));
            else if (event === 'result') result = data;
            else if (event === 'error') throw new Error(`publish failed: ${JSON.stringify(data)}`);
          }
        }
      } finally {
        clearInterval(timer);
      }
      if (res.statusCode !== 200 || !result?.ok)
        throw new Error(`publish answered ${res.statusCode}: ${JSON.stringify(result) ?? text}`);
      return result.data;
    })();
    const publishedMs = performance.now() - t0;
    rss.after_publish = daemonPeakRssMb(pid);
    const manifestRes = await request(`${daemon.url}/nodes/${DOMAIN}/manifest.json`, { dispatcher: reader });
    const manifestText = await manifestRes.body.text();
    const manifest = JSON.parse(manifestText);
    if (manifestRes.statusCode !== 200 || manifest.node_version !== published.versionUlid)
      throw new Error(`the live manifest (${manifestRes.statusCode}) is not the published version`);
    const liveMs = performance.now() - t0;
    threadsByStage.publish_and_live = threads.report(liveMs - graphMs);
    clearInterval(threadTick);
    log(`  live at ${Math.round(liveMs)} ms; reads (load ${load()})`);

    // Reads at size: knowledge search, entity facts, then node files idle and during a republish.
    const get = async (path, dispatcher = reader, auth = true) => {
      const t = performance.now();
      const res = await request(`${daemon.url}${path}`, {
        dispatcher,
        headers: auth ? { authorization: `Bearer ${ids.viewerKey}` } : {},
      });
      await res.body.arrayBuffer();
      return { status: res.statusCode, ms: performance.now() - t };
    };
    let state = 12345;
    const random = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
    const pick = (from, to) => VOCAB[from + Math.floor(random() * (to - from))];
    const queryKinds = [
      () => pick(0, 20),
      () => pick(100, 1000),
      () => pick(2000, 4000),
      () => `${pick(0, 300)} ${pick(0, 300)}`,
      () => pick(100, 1000).slice(0, 4),
    ];
    const searchPath = (q) => `/v1/websites/${ids.websiteId}/knowledge/search?q=${encodeURIComponent(q)}&limit=20`;
    for (let i = 0; i < 10; i++) await get(searchPath(queryKinds[i % queryKinds.length]()));
    const searchMs = [];
    const searchStatus = {};
    for (let i = 0; i < QUERIES; i++) {
      const { status, ms } = await get(searchPath(queryKinds[i % queryKinds.length]()));
      searchStatus[status] = (searchStatus[status] ?? 0) + 1;
      if (status === 200) searchMs.push(ms);
    }
    const maxRowid = graph.prepare('SELECT MAX(rowid) FROM entities').pluck().get() ?? 0;
    const entityAt = graph.prepare('SELECT id FROM entities WHERE rowid >= ? ORDER BY rowid LIMIT 1').pluck();
    const factsMs = [];
    const factsStatus = {};
    for (let i = 0; i < QUERIES; i++) {
      const id = entityAt.get(1 + Math.floor(random() * maxRowid));
      const { status, ms } = await get(`/v1/websites/${ids.websiteId}/entities/${id}/facts`);
      factsStatus[status] = (factsStatus[status] ?? 0) + 1;
      if (status === 200) factsMs.push(ms);
    }
    const nodeRead = (i) => get(`/nodes/${DOMAIN}/${NODE_FILES[i % NODE_FILES.length]}`, reader, false);
    const idleReads = [];
    const idleStatus = {};
    for (let i = 0; i < IDLE_READS; i++) {
      const { status, ms } = await nodeRead(i);
      idleStatus[status] = (idleStatus[status] ?? 0) + 1;
      if (status === 200) idleReads.push(ms);
    }
    // The peak so far holds the reads above: the republish's own is sampled while it runs.
    rss.after_reads = daemonPeakRssMb(pid);
    log(`  republishing with reads (load ${load()})`);
    const r0 = performance.now();
    let done = false;
    let republishRss = 0;
    const republishTimer = setInterval(() => {
      republishRss = Math.max(republishRss, daemonPeakRssMb(pid, 'VmRSS') ?? 0);
    }, 100);
    const republish = publish({ force: true }).finally(() => {
      done = true;
      clearInterval(republishTimer);
    });
    const busyReads = [];
    const busyStatus = {};
    for (let i = 0; !done; i++) {
      const { status, ms } = await nodeRead(i);
      busyStatus[status] = (busyStatus[status] ?? 0) + 1;
      if (status === 200) busyReads.push(ms);
    }
    const republished = await republish;
    const republishMs = performance.now() - r0;
    rss.after_republish = daemonPeakRssMb(pid);
    rss.during_republish = republishRss;
    const counts = Object.fromEntries(
      graph
        .prepare(`SELECT state, COUNT(*) AS n FROM raw_items GROUP BY state`)
        .all()
        .map((r) => [r.state, r.n]),
    );
    const entities = graph.prepare('SELECT COUNT(*) FROM entities').pluck().get();
    pending.close();

    const perItem = (ms) => round(ms / n, 4);
    failed = false;
    return {
      items: n,
      load: { ...loadAt, end: load() },
      generate_ms: Math.round(generateMs),
      payload_mb: round(payloadBytes / 1048576, 1),
      daemon_settle_ms: settleMs,
      accepted: totals.accepted,
      raw_items: counts,
      entities,
      stages_ms_from_first_push: {
        pushed: Math.round(pushMs),
        graph_built: Math.round(graphMs),
        published: Math.round(publishedMs),
        live: Math.round(liveMs),
      },
      stage_ms: {
        push: Math.round(pushMs),
        graph_after_push: Math.round(graphMs - pushMs),
        publish: Math.round(publishedMs - graphMs),
        live_read: round(liveMs - publishedMs),
        forced_republish: Math.round(republishMs),
      },
      per_item_ms: {
        push: perItem(pushMs),
        graph: perItem(graphMs),
        publish: perItem(publishedMs - graphMs),
        republish: perItem(republishMs),
        end_to_end: perItem(liveMs),
      },
      daemon_threads_by_stage: threadsByStage,
      push_batch_ack_ms: { p50: quantile(batchMs, 0.5), p99: quantile(batchMs, 0.99), max: quantile(batchMs, 1) },
      daemon_peak_rss_mb: rss,
      daemon_rss_mb_by_publish_stage: rssByStage,
      bench_peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
      graph_db_bytes: graphBytes,
      node: {
        bytes: (manifest.files ?? []).reduce((sum, f) => sum + f.bytes, 0) + Buffer.byteLength(manifestText),
        files: (manifest.files?.length ?? 0) + 1,
        records: published.recordCount,
        version: published.versionUlid,
        republished_version: republished.versionUlid,
      },
      reads: {
        knowledge_search: {
          queries: QUERIES,
          statuses: searchStatus,
          p50_ms: quantile(searchMs, 0.5),
          p99_ms: quantile(searchMs, 0.99),
        },
        entity_facts: {
          reads: QUERIES,
          statuses: factsStatus,
          p50_ms: quantile(factsMs, 0.5),
          p99_ms: quantile(factsMs, 0.99),
        },
        node_files_idle: {
          reads: IDLE_READS,
          statuses: idleStatus,
          p50_ms: quantile(idleReads, 0.5),
          p99_ms: quantile(idleReads, 0.99),
        },
        node_files_during_publish: {
          reads: Object.values(busyStatus).reduce((a, b) => a + b, 0),
          statuses: busyStatus,
          p50_ms: quantile(busyReads, 0.5),
          p99_ms: quantile(busyReads, 0.99),
          max_ms: quantile(busyReads, 1),
        },
      },
      ...(KEEP ? { data_dir: dataDir } : {}),
    };
  } finally {
    await agent.close();
    await reader.close();
    if (daemon) {
      daemon.child.kill('SIGTERM');
      if (daemon.child.exitCode === null) await new Promise((r) => daemon.child.once('exit', r));
    }
    if (KEEP || failed) rmSync(join(work, 'bodies.bin'), { force: true });
    else rmSync(work, { recursive: true, force: true });
    if (failed) log(`  failed: the data directory and daemon.log are kept in ${work}`);
  }
}

// Last: the helpers above are constants, defined once this line runs.
const oneSize = argOf('--one-size', undefined);
if (oneSize !== undefined) {
  const result = await runSize(Number(oneSize));
  process.send(result, () => process.disconnect());
} else await main();
