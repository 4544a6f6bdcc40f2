// npm run bench:compile: compile time, peak RSS and bytes of generated graphs of 10,000 and
// 100,000 items, against a baseline that only JSON.stringifies, hashes (sha256) and writes the
// same rows. Each case runs in its own process so peak RSS is its own. Both clocks start with
// their code loaded (the baseline's node:crypto and node:fs, the compiler's modules): loading
// the compiler is a fixed start-up cost, shown on its own as compileLoadMs. Cases up to 10,000
// items run three times, alternating, and report the medians: one run is at the mercy of a busy
// machine.
// Targets: compile <= 3x baseline; peak RSS <= 1 GB at 100,000 items.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readdirSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SITE = {
  websiteId: 'web_01JBENCH000000000000000000',
  domain: 'bench.example',
  brand: 'Bench',
  defaultLanguage: 'en',
  plan: 'business',
  verification: { method: 'dns_txt', state: 'verified' },
  aliases: [],
};
const LANGS = ['de', 'en'];
const hex = (kind, i) => (kind * 1e9 + i).toString(16).padStart(24, '0');
const editorial = { hidden: false, pinned: false, editorialStatus: null, reviewedBy: null, originalValue: null };

/**
 * A GraphReader that generates rows on the fly, in id order, so the bench measures the compiler
 * and not an in-memory copy of 1.7 million rows. Per item: 1 source, 1 item entity (+1 shared
 * brand per 50 items), 8 facts (+1 superseded, 1 in 100 hidden), 2 relationships (1 dangling
 * per 20 items), 3 chunks, 2 Q&A (1 in 10 stale); items alternate between en and de.
 */
function createGeneratedReader(items) {
  const langOf = (i) => LANGS[i % 2];
  const url = (i) => `https://bench.example/p/${i}`;
  const src = (i) => `src_${hex(9, i)}`;
  const ent = (i) => `entity_${hex(1, i)}`;
  const brand = (b) => `entity_${hex(2, b)}`;
  function* byLang(language, fn) {
    for (let i = 0; i < items; i++) if (langOf(i) === language) yield* fn(i);
  }
  const predicates = ['availability', 'brand', 'color', 'description', 'gtin', 'name', 'price', 'sku'];
  return {
    languages: () => [...LANGS],
    sources: function* () {
      for (let i = 0; i < items; i++)
        yield {
          id: src(i),
          url: url(i),
          canonicalUrl: null,
          title: `Product ${i}`,
          contentType: 'text/html',
          lastSeenAt: '2026-01-01T00:00:00Z',
          checksum: 'sha256:' + hex(3, i).padStart(64, '0'),
          language: langOf(i),
          trust: 1,
        };
    },
    entities: (language) =>
      (function* () {
        yield* byLang(language, function* (i) {
          yield {
            id: ent(i),
            type: 'Product',
            canonicalKey: url(i),
            name: `Product ${i}`,
            language,
            confidence: 0.95,
            provenanceMethod: 'cms_field',
            sourceId: src(i),
            sourceUrl: url(i),
            importance: i % 5 === 0 ? 5 : 4,
            attributes: { itemType: 'product', url: url(i), description: `A fine product number ${i}.` },
            hidden: false,
          };
        });
        for (let b = 0; b * 50 < items; b++)
          if (langOf(b * 50) === language)
            yield {
              id: brand(b),
              type: 'Brand',
              canonicalKey: `brand ${b}`,
              name: `Brand ${b}`,
              language,
              confidence: 0.9,
              provenanceMethod: 'schema_org',
              sourceId: src(b * 50),
              sourceUrl: url(b * 50),
              importance: 3,
              attributes: {},
              hidden: false,
            };
      })(),
    facts: (language) =>
      byLang(language, function* (i) {
        for (let p = 0; p < predicates.length; p++) {
          const predicate = predicates[p];
          const value =
            predicate === 'price'
              ? 10 + (i % 90) + 0.5
              : predicate === 'description'
                ? `Product ${i} is a well-made thing with a long description that goes on for a while, as real ones do.`
                : `${predicate}-${i}`;
          const base = {
            id: `fact_${hex(4, i * 10 + p)}`,
            subject: `Product ${i}`,
            subjectEntityId: ent(i),
            predicate,
            value,
            language,
            confidence: 0.9,
            provenanceMethod: 'schema_org',
            unit: null,
            currency: predicate === 'price' ? 'EUR' : null,
            display: predicate === 'price' ? `${value.toFixed(2)} EUR` : null,
            importance: predicate === 'price' || predicate === 'name' ? 5 : 3,
            freshness: 'stable',
            validFrom: null,
            validUntil: null,
            sourceId: src(i),
            sourceUrl: url(i),
            status: 'active',
            editorial: i % 100 === 7 && predicate === 'price' ? { ...editorial, hidden: true } : editorial,
          };
          if (predicate === 'price') yield { ...base, value: 1, status: 'superseded' };
          yield base;
        }
      }),
    relationships: (language) =>
      byLang(language, function* (i) {
        yield {
          id: `rel_${hex(5, i * 2)}`,
          type: 'brand',
          fromEntityId: ent(i),
          toEntityId: brand(Math.floor(i / 50)),
          toRef: `brand ${Math.floor(i / 50)}`,
          resolutionStatus: 'resolved',
          language,
          confidence: 0.9,
          provenanceMethod: 'schema_org',
          sourceId: src(i),
          sourceUrl: url(i),
        };
        yield {
          id: `rel_${hex(5, i * 2 + 1)}`,
          type: 'related',
          fromEntityId: ent(i),
          toEntityId: i % 20 === 0 ? null : ent((i + 2) % items),
          toRef: url((i + 2) % items),
          resolutionStatus: i % 20 === 0 ? 'dangling' : 'resolved',
          language,
          confidence: 0.7,
          provenanceMethod: 'text_extraction',
          sourceId: src(i),
          sourceUrl: url(i),
        };
      }),
    chunks: (language) =>
      byLang(language, function* (i) {
        for (let c = 0; c < 3; c++)
          yield {
            id: `chunk_${hex(6, i * 3 + c)}`,
            text: `Section ${c} of product ${i}. `.repeat(12),
            tokensEstimate: 90,
            language,
            entityIds: [ent(i)],
            sourceId: src(i),
            headingPath: ['Details'],
            position: c,
          };
      }),
    qa: (language) =>
      byLang(language, function* (i) {
        yield {
          id: `qa_${hex(7, i * 2)}`,
          question: `What does Product ${i} cost?`,
          answer: `Product ${i} costs ${(10 + (i % 90) + 0.5).toFixed(2)} EUR.`,
          language,
          factIds: [`fact_${hex(4, i * 10 + 6)}`],
          entityIds: [ent(i)],
          confidence: 0.8,
          provenanceMethod: 'schema_org',
          stale: false,
        };
        yield {
          id: `qa_${hex(7, i * 2 + 1)}`,
          question: `Who makes Product ${i}?`,
          answer: `Brand ${Math.floor(i / 50)}.`,
          language,
          factIds: [`fact_${hex(4, i * 10 + 1)}`],
          entityIds: [ent(i)],
          confidence: 0.8,
          provenanceMethod: 'schema_org',
          stale: i % 10 === 0,
        };
      }),
    entityById: () => undefined,
  };
}

function dirBytes(dir) {
  return readdirSync(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0);
}

async function runCase(kind, items) {
  const out = mkdtempSync(join(tmpdir(), `nodectl-bench-${kind}-`));
  const reader = createGeneratedReader(items);
  const loading = process.hrtime.bigint();
  const compiler = kind === 'compile' ? await import('../dist/compiler/index.js') : null;
  const loadMs = Number(process.hrtime.bigint() - loading) / 1e6;
  const started = process.hrtime.bigint();
  let records = 0;
  if (compiler !== null) {
    const { compileNode, createDirectorySink } = compiler;
    const result = compileNode(reader, SITE, { buildTime: '2026-03-01T00:00:00Z' }, createDirectorySink(out));
    records = Object.values(result.counts)
      .filter((v) => typeof v === 'number')
      .reduce((a, b) => a + b, 0);
  } else {
    // Baseline: the same rows, JSON.stringify + sha256 + buffered write, nothing else.
    const files = [
      ['sources.jsonl', () => reader.sources()],
      ...['entities', 'facts', 'relationships', 'chunks', 'qa'].flatMap((k) =>
        LANGS.map((l) => [`${k}.${l}.jsonl`, () => reader[k](l)]),
      ),
    ];
    for (const [name, rows] of files) {
      const fd = openSync(join(out, name), 'w');
      const hash = createHash('sha256');
      let buffer = '';
      const flush = () => {
        const data = Buffer.from(buffer);
        hash.update(data);
        writeSync(fd, data);
        buffer = '';
      };
      for (const row of rows()) {
        buffer += JSON.stringify(row) + '\n';
        records++;
        if (buffer.length >= 65536) flush();
      }
      flush();
      hash.digest('hex');
      closeSync(fd);
    }
  }
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  const bytes = dirBytes(out);
  rmSync(out, { recursive: true, force: true });
  return {
    kind,
    items,
    ms: Math.round(ms),
    loadMs: Math.round(loadMs),
    records,
    bytes,
    peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
  };
}

/** The run with the median time. */
function median(runs) {
  return [...runs].sort((a, b) => a.ms - b.ms)[Math.floor(runs.length / 2)];
}

const self = fileURLToPath(import.meta.url);
if (process.argv[2] === '--case') {
  process.stdout.write(JSON.stringify(await runCase(process.argv[3], Number(process.argv[4]))) + '\n');
} else {
  const sizes = process.argv
    .slice(2)
    .map(Number)
    .filter((n) => n > 0);
  const rows = [];
  for (const items of sizes.length > 0 ? sizes : [10_000, 100_000]) {
    const run = (kind) =>
      JSON.parse(
        execFileSync(process.execPath, [self, '--case', kind, String(items)], { encoding: 'utf8', maxBuffer: 1 << 20 }),
      );
    const runs = { baseline: [], compile: [] };
    for (let i = 0; i < (items <= 10_000 ? 3 : 1); i++)
      for (const kind of ['baseline', 'compile']) runs[kind].push(run(kind));
    const baseline = median(runs.baseline);
    const compile = median(runs.compile);
    rows.push({
      items,
      baselineMs: baseline.ms,
      compileMs: compile.ms,
      ratio: Number((compile.ms / baseline.ms).toFixed(2)),
      compileLoadMs: compile.loadMs,
      compilePeakRssMb: compile.peakRssMb,
      baselinePeakRssMb: baseline.peakRssMb,
      compileBytes: compile.bytes,
      baselineBytes: baseline.bytes,
      exportedRecords: compile.records,
    });
  }
  console.table(rows);
  const big = rows.find((r) => r.items >= 100_000);
  const failures = rows
    .filter((r) => r.ratio > 3)
    .map((r) => `${r.items} items: ${r.ratio}x the baseline (target <= 3x)`);
  if (big && big.compilePeakRssMb > 1024)
    failures.push(`peak RSS ${big.compilePeakRssMb} MB at ${big.items} items (target <= 1024 MB)`);
  console.log(
    failures.length === 0
      ? 'targets met: <= 3x baseline, <= 1 GB peak RSS'
      : `targets missed:\n  ${failures.join('\n  ')}`,
  );
  process.exitCode = failures.length === 0 ? 0 : 1;
}
