import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compileToDirectory } from '../../src/compiler/directory.js';
import { loadFixture } from '../../src/compiler/fixture.js';
import { listFixtures } from '../../src/compiler/golden.js';
import { readPreviousNode } from '../../src/compiler/previous.js';
import { KnownLinesCheck } from '../../src/compiler/validate/known-lines.js';
import { validateNode } from '../../src/compiler/validate/validate-node.js';
import type { LinePrevious, NodeSink } from '../../src/compiler/sink.js';
import type { CompileResult, CompileState } from '../../src/compiler/types.js';
import type { WebsiteInfo } from '../../src/control/records/website-info.js';
import { buildGraphFromItems } from '../../src/ingest/graph/build-from-items.js';
import { setEditorial } from '../../src/ingest/graph/editorial.js';
import { processRawItems } from '../../src/ingest/graph/process-raw-items.js';
import { writeRawItems } from '../../src/ingest/graph/raw-items.js';
import { SqliteGraphReader } from '../../src/ingest/graph/reader.js';
import { RECORDS_GONE_KEPT_MS } from '../../src/ingest/graph/apply-contribution.js';
import { removeItem } from '../../src/ingest/graph/remove-item.js';
import { computeItemChecksum } from '../../src/platform/contract/checksum.js';
import type { IngestItem } from '../../src/platform/contract/index.js';
import type { Db } from '../../src/platform/storage/index.js';
import { makeTempDir, PROJECT_ROOT } from '../helpers/paths.js';

// A compile against a previous version reads that version's record files alongside the files it
// writes (src/compiler/changes.ts), and copies the records unchanged since that
// version's compile (its CompileState, compile-since.ts; of the facts it reads only those that
// changed, reader.ts FACTS_SINCE_SQL); the reference is the compile that hashes every previous
// line first (readPreviousNode with hashRecords) and reads every row, as every compile did
// before. Both must give the same bytes, file by file, whatever changed in the graph.

const FIXTURES = join(PROJECT_ROOT, 'fixtures');
const temp = makeTempDir('nodectl-incremental-');
afterAll(() => temp.cleanup());
let sequence = 0;

function filesOf(dir: string): Map<string, Buffer> {
  return new Map(
    readdirSync(dir)
      .sort()
      .map((name) => [name, readFileSync(join(dir, name))]),
  );
}

/** What each citation line was in the previous version, and how many were copied from it (no record built). */
type CitationTally = Record<LinePrevious | 'copied', number>;

/** Record lines copied from the previous version (no record built), per kind, and the facts' ids. */
type Copied = Record<CopiedKind, number> & { factIds: Set<string> };
const COPIED_KINDS = ['chunks', 'entities', 'facts', 'relationships', 'qa', 'sources'] as const;
type CopiedKind = (typeof COPIED_KINDS)[number];
const noneCopied = (): Copied => ({
  chunks: 0,
  entities: 0,
  facts: 0,
  relationships: 0,
  qa: 0,
  sources: 0,
  factIds: new Set(),
});

/** A sink that tallies the citation lines, and counts the record lines copied by kind, in front of `inner`. */
function tallyCitations(inner: NodeSink, tally: CitationTally, copied: Copied): NodeSink {
  return {
    ...inner,
    open(path) {
      const file = inner.open(path);
      const citations = path === 'citations.jsonl';
      const kind = COPIED_KINDS.find((k) => path.startsWith(`${k}.`));
      if (!citations && kind === undefined) return file;
      return {
        write: (chunk) => file.write(chunk),
        close: (written) => file.close(written),
        line(line, record, previous, id, key) {
          if (citations) tally[previous]++;
          if (record === null) {
            if (citations) tally.copied++;
            else copied[kind!]++;
            if (kind === 'facts' && id !== undefined) copied.factIds.add(id);
          }
          file.line?.(line, record, previous, id, key);
        },
      };
    },
  };
}

/** The code key of these compiles: a CompileState made with it is used by the next one. */
const CODE_KEY = 'incremental-test';

/** A compiled version: its folder and the state its compile left. */
interface Version {
  dir: string;
  state: CompileState | undefined;
}

/**
 * Compiles `db` against `before` both ways and expects the same files and result; returns the
 * incremental one's folder and state, what its citation lines were in the previous version and
 * how many chunk lines it copied.
 */
async function compileBothWays(
  db: Db,
  site: WebsiteInfo,
  buildTime: string,
  before: Version,
  hashedPrevious = false,
): Promise<Version & { result: CompileResult; citations: CitationTally; copied: Copied; runs: number }> {
  const previousDir = before.dir;
  const n = ++sequence;
  const incrementalDir = join(temp.dir, `incremental-${n}`);
  const fullDir = join(temp.dir, `full-${n}`);
  const previous = await readPreviousNode(previousDir, { validated: true });
  expect(previous?.recordHashes).toBeUndefined();
  const full = await readPreviousNode(previousDir, { hashRecords: true });
  expect(full?.recordHashes?.size).toBeGreaterThan(0);
  // A publish checks such a compile from the lines it wrote (KnownLinesCheck), told of the live
  // version or not: the report must be validateNode's on the folder.
  const check = new KnownLinesCheck(incrementalDir, previous!.files);
  const checkAll = new KnownLinesCheck(incrementalDir);
  const citations: CitationTally = { same: 0, changed: 0, other: 0, copied: 0 };
  const copied = noneCopied();
  let runs = 0;
  const { state, ...result } = await compileToDirectory(new SqliteGraphReader(db), site, incrementalDir, {
    buildTime,
    previous: previous!,
    codeKey: CODE_KEY,
    ...(before.state === undefined ? {} : { since: before.state }),
    // A compile that starts again wraps its sink again: the tallies are of the last one.
    wrapSink: (sink) => {
      runs++;
      Object.assign(citations, { same: 0, changed: 0, other: 0, copied: 0 });
      Object.assign(copied, noneCopied());
      return tallyCitations(check.sink(checkAll.sink(sink)), citations, copied);
    },
  });
  const reference = await compileToDirectory(new SqliteGraphReader(db), site, fullDir, {
    buildTime,
    previous: full!,
  });
  expect(result).toEqual(reference);
  expect(state?.nodeVersion).toBe(result.nodeVersion);
  // The facts it rejected are read whole next time (they have no line to copy).
  expect(state?.rejectedFacts).toEqual(
    result.rejected
      .filter((r) => r.file.startsWith('facts.') && r.path !== 'language')
      .map((r) => r.id)
      .sort(),
  );
  // And the entities it rejected (the scan copies the others' checks).
  expect(state?.rejectedEntities).toEqual(
    result.rejected
      .filter((r) => r.file.startsWith('entities.') && r.path !== 'language')
      .map((r) => r.id)
      .sort(),
  );
  // So are the facts it withheld: every fact of the node's languages with neither a line nor a rejection.
  const languages = readdirSync(incrementalDir).flatMap((f) => /^facts\.(.+)\.jsonl$/.exec(f)?.[1] ?? []);
  const written = new Set(
    languages.flatMap((language) =>
      readFileSync(join(incrementalDir, `facts.${language}.jsonl`), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => (JSON.parse(line) as { id: string }).id),
    ),
  );
  const graphFacts = db
    .prepare(
      `SELECT DISTINCT fact_id FROM fact_candidates WHERE language IN (SELECT value FROM json_each(?)) ORDER BY 1`,
    )
    .pluck()
    .all(JSON.stringify(languages)) as string[];
  expect(state?.withheldFacts).toEqual(
    graphFacts.filter((id) => !written.has(id) && !state!.rejectedFacts!.includes(id)),
  );
  const a = filesOf(incrementalDir);
  const b = filesOf(fullDir);
  expect([...a.keys()]).toEqual([...b.keys()]);
  for (const [name, bytes] of a) expect(bytes.equals(b.get(name)!), name).toBe(true);
  const folder = await validateNode(incrementalDir, { recordsPassedSchemas: true, forNewVersion: true });
  expect(folder.ok).toBe(true);
  expect(await checkAll.report()).toEqual(folder);
  // Told of the live version, it leaves the check to the folder when a live record is gone (a
  // reference to it may dangle) and lines were the live version's bytes (none when it was hashed).
  const changes = readFileSync(join(incrementalDir, 'changes.jsonl'), 'utf8');
  const removed = /"change":"removed","record_kind":"(?!file)/.test(changes);
  const known = await check.report();
  if (removed && !hashedPrevious) expect(known).toBeUndefined();
  else expect(known).toEqual(folder);
  return { dir: incrementalDir, state, result, citations, copied, runs };
}

async function firstVersion(db: Db, site: WebsiteInfo, buildTime: string): Promise<Version> {
  const dir = join(temp.dir, `first-${++sequence}`);
  const { state } = await compileToDirectory(new SqliteGraphReader(db), site, dir, { buildTime, codeKey: CODE_KEY });
  return { dir, state };
}

/** Ingests `items` again into the graph, as a connector's later push would. */
function reingest(db: Db, site: WebsiteInfo, items: IngestItem[], receivedAt: string): void {
  const outcomes = writeRawItems(db, items, (i) => JSON.stringify(items[i]), {
    connectorId: 'test',
    defaultLanguage: site.defaultLanguage,
    receivedAt,
  });
  const ids = outcomes.flatMap((o) => (o.status === 'accepted' ? [o.rawContentId] : []));
  processRawItems(db, site, ids, { mappings: [], now: receivedAt });
}

/** The item with a new title and one more sentence, its checksum made again. */
function edited(item: IngestItem, n: number): IngestItem {
  const next = { ...item, title: `${item.title ?? item.id} (edition ${n})` } as IngestItem & Record<string, unknown>;
  if (typeof next.text === 'string') next.text += `\n\nRevised in edition ${n}.`;
  if (typeof next.html === 'string') next.html = next.html.replace('</body>', `<p>Revised in edition ${n}.</p></body>`);
  if (next.checksum !== undefined) next.checksum = computeItemChecksum(next as never);
  return next;
}

describe('a compile against a previous version', () => {
  it.each(listFixtures(FIXTURES))(
    '%s: gives the bytes of a compile that hashes the previous version first',
    async (name) => {
      const fixture = loadFixture(join(FIXTURES, name));
      const file = join(temp.dir, `${name}.sqlite`);
      const graph = buildGraphFromItems(fixture.items, fixture.site, {
        receivedAt: '2026-03-01T00:00:00Z',
        editorial: fixture.editorial,
        file,
      });
      try {
        const v1 = await firstVersion(graph.db, fixture.site, '2026-03-01T01:00:00Z');
        // Nothing changed: every record is the same line as before.
        const same = await compileBothWays(graph.db, fixture.site, '2026-03-01T02:00:00Z', v1);
        // Nothing was written since the first compile: every chunk is copied, every entity but
        // those whose attributes a hidden fact takes out, and every fact but those an editor
        // changed (all read whole).
        const chunkCount = same.result.counts.chunks;
        expect(same.copied.chunks).toBe(chunkCount);
        const hiddenFacts = same.result.counts.withheld.hiddenFacts;
        if (hiddenFacts === 0) expect(same.copied.entities).toBe(same.result.counts.entities);
        else expect(same.copied.entities).toBeGreaterThan(0);
        const factsEdited = graph.db
          .prepare(
            'SELECT count(DISTINCT f.fact_id) FROM fact_candidates f JOIN editorial ed ON ed.record_id = f.fact_id',
          )
          .pluck()
          .get() as number;
        expect(same.copied.facts).toBeGreaterThanOrEqual(same.result.counts.facts - factsEdited);
        expect(same.copied.facts).toBeLessThanOrEqual(same.result.counts.facts);
        // Every source and relationship is copied; so is every Q&A but those of the facts an editor changed.
        expect(same.copied.sources).toBe(same.result.counts.sources);
        expect(same.copied.relationships).toBe(same.result.counts.relationships);
        if (factsEdited === 0) expect(same.copied.qa).toBe(same.result.counts.qa);
        else expect(same.copied.qa).toBeLessThanOrEqual(same.result.counts.qa);
        expect(readFileSync(join(same.dir, 'changes.jsonl'), 'utf8')).not.toMatch(/"record_kind":"(fact|entity)"/);
        // Every citation is the previous version's line, so its checks stand; each record and its
        // source are the previous version's lines too, so the citation is copied, not built.
        const citationCount = same.result.files.find((f) => f.path === 'citations.jsonl')?.records;
        expect(same.citations).toEqual({ same: citationCount, changed: 0, other: 0, copied: citationCount });
        // Every third item edited, the last one deleted.
        const items = fixture.items;
        reingest(
          graph.db,
          fixture.site,
          items.filter((_, i) => i % 3 === 0).map((item) => edited(item, 2)),
          '2026-03-01T03:00:00Z',
        );
        const last = items[items.length - 1]!;
        if (items.length > 1) removeItem(graph.db, fixture.site, `${last.type}:${last.id}`);
        const v2 = await compileBothWays(graph.db, fixture.site, '2026-03-01T04:00:00Z', same);
        expect(readFileSync(join(v2.dir, 'changes.jsonl'), 'utf8')).toContain('"change":"changed"');
        // The citations of the items left as they were are still the previous version's lines.
        if (items.length > 2) expect(v2.citations.copied).toBeGreaterThan(0);
        // The chunks of the items left as they were are copied; the edited items' are not.
        if (items.length > 2 && chunkCount > 0) {
          expect(v2.copied.chunks).toBeGreaterThan(0);
          expect(v2.copied.chunks).toBeLessThan(v2.result.counts.chunks);
          expect(v2.copied.entities).toBeLessThan(v2.result.counts.entities);
        }
      } finally {
        graph.close();
      }
    },
  );
});

const SITE: WebsiteInfo = {
  websiteId: 'web_01JINCREMENTALTEST0000000',
  domain: 'shop.example',
  brand: 'Incremental Shop',
  defaultLanguage: 'en',
  plan: 'pro',
  verification: { method: 'dns_txt', state: 'verified' },
  aliases: [],
};

/** Generated pages: products with structured data, articles, a few German pages. */
function generatedItem(i: number, edition = 0): IngestItem {
  const kind = i % 4 === 0 ? 'post' : 'product';
  const language = i % 10 === 9 ? 'de' : 'en';
  const words = ['coffee', 'grinder', 'roast', 'espresso', 'filter', 'bean', 'origin', 'brew'];
  const text = Array.from({ length: 30 + (i % 50) }, (_, w) => words[(i * 7 + w) % 8]).join(' ');
  const title = `${kind === 'post' ? 'Article' : 'Product'} ${i}${edition > 0 ? ` (edition ${edition})` : ''}`;
  const url = `https://shop.example/${kind}s/${i}`;
  const jsonLd =
    kind === 'product'
      ? `<script type="application/ld+json">${JSON.stringify({
          '@context': 'https://schema.org',
          '@type': 'Product',
          name: title,
          sku: `SKU-${i}`,
          brand: { '@type': 'Brand', name: i % 2 === 0 ? 'Kaffeewerk' : 'Roastery' },
          offers: { '@type': 'Offer', price: String(10 + (i % 90) + edition), priceCurrency: 'EUR' },
        })}</script>`
      : '';
  const html = `<!doctype html><html lang="${language}"><head><title>${title}</title>${jsonLd}</head><body><h1>${title}</h1><p>${text}.</p><p>Made in Hamburg by ${i % 2 === 0 ? 'Kaffeewerk' : 'Roastery'}. Item ${i}.</p></body></html>`;
  const item = { type: kind, id: `${kind}:${i}`, url, title, html, language } as IngestItem & Record<string, unknown>;
  item.checksum = computeItemChecksum(item as never);
  return item;
}

describe('a generated site through edits, deletes and a GDPR purge', () => {
  it('compiles each version against the one before to the bytes of the reference compile', async () => {
    const items = Array.from({ length: 300 }, (_, i) => generatedItem(i));
    const graph = buildGraphFromItems(items, SITE, {
      receivedAt: '2026-03-01T00:00:00Z',
      file: join(temp.dir, 'generated.sqlite'),
    });
    try {
      const db = graph.db;
      let previous = await firstVersion(db, SITE, '2026-03-01T01:00:00Z');

      // Edits of 1 in 20 items (titles, prices), and a fact hidden by an editor.
      reingest(
        db,
        SITE,
        items.flatMap((_, i) => (i % 20 === 5 ? [generatedItem(i, 1)] : [])),
        '2026-03-01T02:00:00Z',
      );
      const fact = db.prepare("SELECT fact_id FROM fact_candidates WHERE predicate = 'price' LIMIT 1").pluck().get() as
        string | undefined;
      expect(fact).toBeDefined();
      setEditorial(db, fact!, { hidden: true });
      // And an entity that chunks of items left as they were mention, hidden: those chunks lose it.
      const mentioned = db
        .prepare(
          `SELECT j.value FROM chunks c, json_each(c.mention_ids) j JOIN entities e ON e.id = j.value
           GROUP BY j.value ORDER BY count(*) DESC, j.value LIMIT 1`,
        )
        .pluck()
        .get() as string | undefined;
      expect(mentioned).toBeDefined();
      setEditorial(db, mentioned!, { hidden: true });
      let version = await compileBothWays(db, SITE, '2026-03-01T03:00:00Z', previous);
      expect(version.copied.chunks).toBeGreaterThan(0);
      // The editorial table was written: every entity and fact is read whole (a hidden fact may
      // take attributes out of an entity whose row did not change).
      expect(version.copied.entities).toBe(0);
      expect(version.copied.facts).toBe(0);
      // So is every Q&A (a fact hidden makes some stale); the relationships of neither edited item
      // nor hidden entity are copied.
      expect(version.copied.qa).toBe(0);
      expect(version.copied.relationships).toBeGreaterThan(0);
      expect(version.copied.relationships).toBeLessThan(version.result.counts.relationships);
      const hiddenMentions = readFileSync(join(previous.dir, 'chunks.en.jsonl'), 'utf8').split(mentioned!).length;
      expect(hiddenMentions).toBeGreaterThan(2);
      expect(readFileSync(join(version.dir, 'chunks.en.jsonl'), 'utf8')).not.toContain(mentioned!);
      const edits = readFileSync(join(version.dir, 'changes.jsonl'), 'utf8');
      expect(edits).toContain('"change":"changed"');
      expect(edits).toContain('"change":"removed"');
      previous = version;

      // Deletes (tombstones) and GDPR purges (erasure).
      for (const i of [3, 40, 41, 199]) removeItem(db, SITE, `${generatedItem(i).type}:${generatedItem(i).id}`);
      for (const i of [8, 120])
        removeItem(db, SITE, `${generatedItem(i).type}:${generatedItem(i).id}`, { erase: true });
      version = await compileBothWays(db, SITE, '2026-03-01T04:00:00Z', previous);
      expect(readFileSync(join(version.dir, 'changes.jsonl'), 'utf8')).toContain('"record_kind":"source"');
      // Every fact left is another page's, as it was: copied, and so are the Q&A made from them.
      expect(version.copied.facts).toBe(version.result.counts.facts);
      expect(version.copied.qa).toBe(version.result.counts.qa);
      expect(version.result.counts.qa).toBeGreaterThan(0);
      expect(version.copied.relationships).toBeGreaterThan(0);
      // The sources of the items gone are gone; every other one is copied.
      expect(version.copied.sources).toBe(version.result.counts.sources);
      previous = version;

      // New items, and the edited items back as they were.
      reingest(
        db,
        SITE,
        [...Array.from({ length: 20 }, (_, k) => generatedItem(300 + k)), generatedItem(5), generatedItem(25)],
        '2026-03-01T05:00:00Z',
      );
      version = await compileBothWays(db, SITE, '2026-03-01T06:00:00Z', previous);
      expect(readFileSync(join(version.dir, 'changes.jsonl'), 'utf8')).toContain('"change":"added"');
      // The citations of the records that did not change are the previous version's lines; the
      // new items' and the edited items' are not.
      expect(version.citations.same).toBeGreaterThan(version.citations.other);
      expect(version.citations.other).toBeGreaterThan(0);
      expect(version.citations.copied).toBeGreaterThan(0);
      expect(version.citations.copied).toBeLessThanOrEqual(version.citations.same);
      // No editorial write since: the entities the new items did not name are copied.
      expect(version.copied.entities).toBeGreaterThan(0);
      expect(version.copied.entities).toBeLessThan(version.result.counts.entities);
      previous = version;

      // The entity shown again: the chunks that mention it have it back.
      setEditorial(db, mentioned!, { hidden: false });
      version = await compileBothWays(db, SITE, '2026-03-01T06:30:00Z', previous);
      // (as often as before it was hidden, and in the new items' chunks)
      expect(readFileSync(join(version.dir, 'chunks.en.jsonl'), 'utf8').split(mentioned!).length).toBeGreaterThan(
        hiddenMentions,
      );
      expect(version.copied.chunks).toBeGreaterThan(0);
      previous = version;

      // A delete alone, of the item the mentioned entity was taken from: the entity is derived
      // again from another item, and its line follows; the other entities are copied.
      const taken = db.prepare('SELECT item_key FROM entities WHERE id = ?').pluck().get(mentioned!) as string;
      const entityBefore = db.prepare('SELECT * FROM entities WHERE id = ?').get(mentioned!);
      removeItem(db, SITE, taken);
      expect(db.prepare('SELECT * FROM entities WHERE id = ?').get(mentioned!)).not.toEqual(entityBefore);
      version = await compileBothWays(db, SITE, '2026-03-01T06:35:00Z', previous);
      expect(version.copied.entities).toBeGreaterThan(0);
      expect(version.copied.entities).toBeLessThan(version.result.counts.entities);
      previous = version;

      // A hidden fact's candidates gone while its subject's row stays (as when the item that
      // stated it goes and the entity came from another): the subject had an attribute taken out
      // in the previous version, and has it back although its row did not change.
      const withAttribute = db
        .prepare(
          `SELECT f.fact_id, f.subject_entity_id FROM fact_candidates f JOIN entities e ON e.id = f.subject_entity_id
           WHERE json_extract(e.attributes, '$.' || f.predicate) IS NOT NULL ORDER BY f.fact_id LIMIT 1`,
        )
        .get() as { fact_id: string; subject_entity_id: string } | undefined;
      expect(withAttribute).toBeDefined();
      const { fact_id: hiddenFact, subject_entity_id: subject } = withAttribute!;
      setEditorial(db, hiddenFact, { hidden: true });
      previous = await compileBothWays(db, SITE, '2026-03-01T06:36:00Z', previous);
      const lineOf = (dir: string) =>
        readdirSync(dir)
          .filter((name) => name.startsWith('entities.'))
          .flatMap((name) => readFileSync(join(dir, name), 'utf8').split('\n'))
          .find((line) => line.startsWith(`{"id":"${subject}"`));
      expect(lineOf(previous.dir)).toBeDefined();
      const entitySeq = db.prepare('SELECT seq FROM entities WHERE id = ?').pluck().get(subject);
      db.prepare('DELETE FROM fact_candidates WHERE fact_id = ?').run(hiddenFact);
      db.prepare('UPDATE graph_state SET seq = seq + 1').run();
      version = await compileBothWays(db, SITE, '2026-03-01T06:37:00Z', previous);
      expect(db.prepare('SELECT seq FROM entities WHERE id = ?').pluck().get(subject)).toBe(entitySeq);
      expect(lineOf(version.dir)).not.toBe(lineOf(previous.dir));
      expect(version.copied.entities).toBeGreaterThan(0);
      previous = version;

      // A fact stated by a second page too. Seen before the first page, that page's candidates
      // are superseded; seen after it, they survive. Either way, the page gone, the fact is read
      // again (a candidate taken out names it): the first page's line, with fewer candidates
      // withheld, or the first page's candidate as the survivor again.
      const statusOf = (itemKey: string) =>
        db
          .prepare("SELECT status FROM fact_candidates WHERE item_key = ? AND predicate = 'price'")
          .pluck()
          .get(itemKey);
      for (const [seen, survives, price] of [
        ['2026-02-01T00:00:00Z', false, '19'],
        ['2026-03-01T06:38:00Z', true, '21'],
      ] as const) {
        const original = generatedItem(7);
        const copy = { ...original, id: `product:7-at-${price}` } as IngestItem & Record<string, unknown>;
        copy.html = (copy.html as string).replace('"price":"17"', `"price":"${price}"`);
        copy.checksum = computeItemChecksum(copy as never);
        reingest(db, SITE, [copy], seen);
        expect(statusOf(`product:${copy.id}`)).toBe(survives ? 'active' : 'superseded');
        expect(statusOf('product:product:7')).toBe(survives ? 'superseded' : 'active');
        previous = await compileBothWays(db, SITE, '2026-03-01T06:39:00Z', previous);
        const withheld = previous.result.counts.withheld.supersededFacts;
        const priceFact = db
          .prepare("SELECT fact_id FROM fact_candidates WHERE item_key = 'product:product:7' AND predicate = 'price'")
          .pluck()
          .get() as string;
        removeItem(db, SITE, `product:${copy.id}`);
        version = await compileBothWays(db, SITE, '2026-03-01T06:39:30Z', previous);
        expect(version.result.counts.withheld.supersededFacts).toBeLessThan(withheld);
        expect(version.copied.factIds.has(priceFact)).toBe(false);
        expect(version.copied.facts).toBeGreaterThan(version.result.counts.facts / 2);
        previous = version;
      }

      // A question a second page asks too, less confidently, from another fact (a row written by
      // hand, the sequence raised as a writer does): its line is the first page's row's. That
      // page gone, the line is the other row's, whose row was not written since: deleting a row
      // stamps the others of its id.
      const asked = db.prepare("SELECT * FROM qa WHERE item_key = 'product:product:6' AND stale = 0").get() as Record<
        string,
        unknown
      >;
      const otherFact = db
        .prepare(
          "SELECT fact_id, value FROM fact_candidates WHERE item_key = 'product:product:10' AND predicate = 'price' AND status = 'active'",
        )
        .get() as { fact_id: string; value: string };
      db.prepare('UPDATE graph_state SET seq = seq + 1').run();
      db.prepare(
        `INSERT INTO qa (id, item_key, question, answer, language, fact_ids, entity_ids, fact_values, confidence, provenance_method, stale, seq)
         VALUES (?, 'product:product:6z', ?, ?, 'en', ?, '[]', ?, ?, ?, 0, (SELECT seq FROM graph_state))`,
      ).run(
        asked.id,
        asked.question,
        asked.answer,
        JSON.stringify([otherFact.fact_id]),
        JSON.stringify({ [otherFact.fact_id]: JSON.parse(otherFact.value) as unknown }),
        (asked.confidence as number) / 2,
        asked.provenance_method,
      );
      previous = await compileBothWays(db, SITE, '2026-03-01T06:39:35Z', previous);
      const qaLine = (dir: string) =>
        readFileSync(join(dir, 'qa.en.jsonl'), 'utf8')
          .split('\n')
          .find((line) => line.startsWith(`{"id":"${asked.id as string}"`));
      expect(qaLine(previous.dir)).toContain(`"confidence":${asked.confidence as number},`);
      removeItem(db, SITE, 'product:product:6');
      version = await compileBothWays(db, SITE, '2026-03-01T06:39:36Z', previous);
      expect(qaLine(version.dir)).toContain(otherFact.fact_id);
      expect(version.copied.qa).toBeGreaterThan(0);
      previous = version;

      // The subject entity of facts left as they were gone, then back: their lines lose the
      // subject_entity_id, then have it again; every other fact is copied.
      const factsFile = join(previous.dir, 'facts.en.jsonl');
      const gone = db
        .prepare(
          `SELECT f.subject_entity_id FROM fact_candidates f JOIN entities e ON e.id = f.subject_entity_id
           WHERE f.language = 'en' AND f.status = 'active' ORDER BY f.fact_id LIMIT 1`,
        )
        .pluck()
        .get() as string;
      const linesOfSubject = () =>
        readFileSync(factsFile, 'utf8')
          .split('\n')
          .filter((line) => line.includes(`"subject_entity_id":"${gone}"`)).length;
      const ofSubject = linesOfSubject();
      expect(ofSubject).toBeGreaterThan(0);
      const entityRow = db.prepare('SELECT * FROM entities WHERE id = ?').get(gone) as Record<string, unknown>;
      // As every writer does: the sequence is raised before a row is taken out (records_gone keeps it).
      db.prepare('UPDATE graph_state SET seq = seq + 1').run();
      db.prepare('DELETE FROM entities WHERE id = ?').run(gone);
      version = await compileBothWays(db, SITE, '2026-03-01T06:39:40Z', previous);
      expect(readFileSync(join(version.dir, 'facts.en.jsonl'), 'utf8')).not.toContain(gone);
      expect(version.copied.facts).toBe(version.result.counts.facts - ofSubject);
      previous = version;
      db.prepare('UPDATE graph_state SET seq = seq + 1').run();
      const columns = Object.keys(entityRow);
      db.prepare(
        `INSERT INTO entities (${columns.join(', ')}) VALUES (${columns.map((c) => (c === 'seq' ? '(SELECT seq FROM graph_state)' : `@${c}`)).join(', ')})`,
      ).run(Object.fromEntries(Object.entries(entityRow).filter(([c]) => c !== 'seq')));
      version = await compileBothWays(db, SITE, '2026-03-01T06:39:50Z', previous);
      expect(
        readFileSync(join(version.dir, 'facts.en.jsonl'), 'utf8').split(`"subject_entity_id":"${gone}"`).length,
      ).toBe(ofSubject + 1);
      expect(version.copied.facts).toBe(version.result.counts.facts - ofSubject);
      previous = version;

      // An entity whose row fails its schema (written so by hand, the sequence raised as a writer
      // does): rejected, and rejected again once its row is unchanged. The state lists it, so the
      // scan, which takes the other unchanged entities as their live lines passed, checks it again
      // and the compile does not start over.
      const rejected = db
        .prepare(`SELECT id FROM entities WHERE language = 'en' AND id != ? ORDER BY id LIMIT 1 OFFSET 7`)
        .pluck()
        .get(gone) as string;
      db.prepare('UPDATE graph_state SET seq = seq + 1').run();
      db.prepare('UPDATE entities SET confidence = 1.7, seq = (SELECT seq FROM graph_state) WHERE id = ?').run(
        rejected,
      );
      version = await compileBothWays(db, SITE, '2026-03-01T06:39:52Z', previous);
      expect(version.result.rejected.map((r) => r.id)).toContain(rejected);
      expect(version.state?.rejectedEntities).toContain(rejected);
      previous = version;
      reingest(db, SITE, [generatedItem(11, 3)], '2026-03-01T06:39:53Z');
      version = await compileBothWays(db, SITE, '2026-03-01T06:39:54Z', previous);
      expect(version.runs).toBe(1);
      expect(version.result.rejected.map((r) => r.id)).toContain(rejected);
      expect(version.copied.entities).toBeGreaterThan(0);
      previous = version;

      // records_gone pruned past the state's sequence (a live version not published again for the
      // retention): what was deleted since may be forgotten, so every fact is read; chunks are copied.
      expect(removeItem(db, SITE, `${generatedItem(9).type}:${generatedItem(9).id}`)).toBe(true);
      db.prepare('DELETE FROM records_gone').run();
      db.prepare('UPDATE graph_state SET gone_floor = seq').run();
      version = await compileBothWays(db, SITE, '2026-03-01T06:39:55Z', previous);
      expect(version.copied.facts).toBe(0);
      expect(version.copied.chunks).toBeGreaterThan(0);
      previous = version;
      // The writer forgets what was deleted before the retention, and raises the floor to it (the
      // compile above read everything, so a floor of 0 again claims nothing that matters).
      db.prepare('UPDATE graph_state SET gone_floor = 0').run();
      db.prepare("INSERT INTO records_gone (seq, kind, id) VALUES (1, 'fact', 'fact_000000000000000000000000')").run();
      reingest(db, SITE, [generatedItem(502)], '2026-03-01T06:39:57Z');
      expect(db.prepare('SELECT count(*) FROM records_gone WHERE seq = 1').pluck().get()).toBe(0);
      const floor = db.prepare('SELECT gone_floor FROM graph_state').pluck().get() as number;
      expect(Math.abs(floor - (Date.now() - RECORDS_GONE_KEPT_MS))).toBeLessThan(60_000);

      // A state that does not describe the previous version (its chunks claimed unchanged since a
      // later write): a chunk it calls unchanged has no line there, and the compile starts again
      // reading every chunk.
      reingest(db, SITE, [generatedItem(500)], '2026-03-01T06:40:00Z');
      const seq = db.prepare('SELECT seq FROM graph_state').pluck().get() as number;
      const wrong = await compileBothWays(db, SITE, '2026-03-01T06:50:00Z', {
        dir: previous.dir,
        state: { ...previous.state!, seq },
      });
      expect(wrong.copied.chunks).toBe(0);
      // A state of another graph, or of other code, is not used.
      for (const state of [
        { ...wrong.state!, graphId: 'another' },
        { ...wrong.state!, contextKey: '0'.repeat(64) },
      ]) {
        reingest(db, SITE, [generatedItem(501)], '2026-03-01T06:55:00Z');
        expect((await compileBothWays(db, SITE, '2026-03-01T06:58:00Z', { dir: wrong.dir, state })).copied.chunks).toBe(
          0,
        );
      }
      previous = wrong;

      // A previous version whose record lines are not in id order (not written by this compiler):
      // the compile starts again with that version's lines hashed first, and still matches.
      const facts = join(previous.dir, 'facts.en.jsonl');
      const lines = readFileSync(facts, 'utf8').split('\n').filter(Boolean);
      expect(lines.length).toBeGreaterThan(2);
      writeFileSync(facts, [lines[1], lines[0], ...lines.slice(2)].join('\n') + '\n');
      reingest(db, SITE, [generatedItem(30, 2)], '2026-03-01T07:00:00Z');
      await compileBothWays(db, SITE, '2026-03-01T08:00:00Z', previous, true);
    } finally {
      graph.close();
    }
  });
});
