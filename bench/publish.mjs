// Publish speed: a 10,000-item site compiled by the real compiler, published to fs and to a local
// S3 server (s3rver, in its own process): first publish, republish with nothing changed (new
// build time, same content: the live version stays), the same forced to a new version, and
// republish with 1 % of the items changed. Run: npm run bench:publish
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileToDirectory, loadFixture, readPreviousNode } from '../dist/compiler/index.js';
import { buildGraphFromItems } from '../dist/ingest/graph/build-from-items.js';
import { publishNode } from '../dist/output/publish/index.js';
import { publishBenchItem as item } from './lib/publish-items.mjs';
import { startS3Server } from './lib/s3-server.mjs';
import { createFsTarget } from '../dist/output/publish/targets/fs.js';
import { createS3Target } from '../dist/output/publish/targets/s3.js';
import { openControlDb } from '../dist/platform/storage/control.js';
import { dataDirLayout } from '../dist/platform/storage/data-dir.js';

const ITEMS = Number(process.env.BENCH_ITEMS ?? 10_000);
const WEBSITE = 'web_01JBENCHPUBLISH000000000';
const DOMAIN = 'bench.example';
const work = mkdtempSync(join(tmpdir(), 'nodectl-bench-publish-'));

function writeFixture(dir, buildTime, changed) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'site.json'),
    JSON.stringify({
      website_id: WEBSITE,
      domain: DOMAIN,
      brand: 'Bench',
      default_language: 'en',
      plan: 'pro',
      verification: { method: 'dns_txt', state: 'verified' },
      build_time: buildTime,
    }),
  );
  const lines = [];
  for (let i = 0; i < ITEMS; i++) lines.push(JSON.stringify(item(i, changed.has(i) ? 1 : 0)));
  writeFileSync(join(dir, 'items.jsonl'), lines.join('\n') + '\n');
  return dir;
}

async function compile(name, buildTime, changed, previousDir) {
  const fixture = loadFixture(writeFixture(join(work, `fx-${name}`), buildTime, changed));
  const started = performance.now();
  const graph = buildGraphFromItems(fixture.items, fixture.site, { receivedAt: '2026-03-01T00:00:00Z' });
  const out = join(work, `node-${name}`);
  const previous = previousDir ? await readPreviousNode(previousDir) : undefined;
  const result = await compileToDirectory(graph.reader, fixture.site, out, {
    buildTime,
    ...(previous ? { previous } : {}),
  });
  graph.close();
  const bytes = result.files.reduce((s, f) => s + f.bytes, 0);
  console.error(
    `compiled ${name}: ${result.files.length} files, ${(bytes / 1e6).toFixed(1)} MB in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  return out;
}

const changed = new Set(Array.from({ length: Math.round(ITEMS / 100) }, (_, k) => k * 100 + 7));
const first = await compile('first', '2026-03-02T09:00:00Z', new Set());
const same = await compile('unchanged', '2026-03-02T10:00:00Z', new Set(), first);
const onePct = await compile('one-percent', '2026-03-02T11:00:00Z', changed, same);

const s3dir = join(work, 's3rver');
const server = await startS3Server(s3dir);
const rows = [];
try {
  for (const kind of ['fs', 's3']) {
    const dataDir = join(work, `data-${kind}`);
    const db = openControlDb(dataDirLayout(dataDir));
    const target =
      kind === 'fs'
        ? createFsTarget({ root: join(dataDir, 'nodes') })
        : await createS3Target({
            bucket: 'nodes',
            endpoint: server.endpoint,
            forcePathStyle: true,
            accessKeyId: 'S3RVER',
            secretAccessKey: 'S3RVER',
          });
    const cases = [
      ['first publish', first, false],
      ['unchanged republish', same, false],
      ['unchanged, --force', same, true],
      ['1 % changed', onePct, false],
    ];
    for (const [name, dir, force] of cases) {
      // Step start times (ms), so a slow case shows where its time went.
      const steps = [];
      const progress = {
        step: (step) => steps.push(`${step}@${(performance.now() - started).toFixed(0)}`),
        advance() {},
        stop() {},
      };
      const started = performance.now();
      const r = await publishNode({
        target,
        nodeDir: dir,
        websiteId: WEBSITE,
        controlDb: db,
        nodeBaseUrl: 'http://127.0.0.1:8787/nodes',
        maxDrop: 0.5,
        force,
        progress,
      });
      const seconds = (performance.now() - started) / 1000;
      console.error(`${kind} ${name}: ${steps.join(' ')}`);
      const uploadedFiles = r.files.filter((f) => f.state === 'uploaded');
      // changes.jsonl and openapi.json are immutable per version but rewritten by every publish (patched files).
      const immutableUploaded = uploadedFiles
        .filter((f) => f.immutable && !['changes.jsonl', 'openapi.json'].includes(f.path))
        .reduce((s, f) => s + f.bytes, 0);
      rows.push({
        target: kind,
        case: name,
        newVersion: !r.alreadyLive,
        seconds: Number(seconds.toFixed(3)),
        bytesUploaded: r.bytesUploaded,
        bytesCarried: r.bytesCarried,
        immutableRecordBytesUploaded: immutableUploaded,
        filesUploaded: uploadedFiles.length,
        filesCarried: r.files.length - uploadedFiles.length,
        uploaded: uploadedFiles.map((f) => f.path).join(' '),
        objectsWritten: r.objectsWritten,
      });
    }
    await target.close();
    db.close();
  }
} finally {
  await server.stop();
  rmSync(work, { recursive: true, force: true });
}
console.log(`publish bench: ${ITEMS} items, node ${process.version}, ${(await import('node:os')).cpus().length} cores`);
console.table(rows.map(({ uploaded, ...r }) => r));
for (const r of rows) console.log(`${r.target} ${r.case}: uploaded ${r.uploaded || '(nothing)'}`);
for (const kind of ['fs', 's3']) {
  const [a, b, forced] = rows.filter((r) => r.target === kind);
  const share = (r) => `${((r.seconds / a.seconds) * 100).toFixed(0)} %`;
  console.log(`${kind}: unchanged republish takes ${share(b)} of the first publish (${forced.case}: ${share(forced)})`);
}
