import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FACT_SQL, FACTS_SINCE_SQL } from '../../../src/ingest/graph/reader.js';
import {
  fitWriterCache,
  graphStatements,
  openGraphWriter,
  writerCacheKib,
} from '../../../src/ingest/graph/statements.js';
import { GRAPH_DB_OPTIONS } from '../../../src/platform/storage/graph-db.js';
import { openDatabase, type Db } from '../../../src/platform/storage/sqlite.js';
import { PROJECT_ROOT } from '../../helpers/paths.js';

const dirs: string[] = [];
const open: Db[] = [];
afterEach(() => {
  for (const db of open.splice(0)) db.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A new graph file, or a committed fixture of an older schema version migrated by opening it. */
function graph(fixtureVersion?: number): Db {
  const dir = mkdtempSync(join(tmpdir(), 'nodectl-graph-settings-'));
  dirs.push(dir);
  const file = join(dir, 'web_TEST.sqlite');
  if (fixtureVersion !== undefined)
    copyFileSync(join(PROJECT_ROOT, 'test', 'data', `graph-v${fixtureVersion}.sqlite`), file);
  const db = openDatabase(file, GRAPH_DB_OPTIONS);
  open.push(db);
  return db;
}

const cases = [
  { label: 'a new graph', version: undefined },
  { label: 'a version 6 graph, migrated', version: 6 },
];

describe('graph settings the store and the compiler rely on (graph migrations 0007, 0010)', () => {
  it.each(cases)(
    '$label: the search index holds a batch of pages in one segment (hashsize 16 MiB, automerge 8)',
    ({ version }) => {
      const config = Object.fromEntries(
        (graph(version).prepare('SELECT k, v FROM search_fts_config').all() as Array<{ k: string; v: number }>).map(
          (r) => [r.k, r.v],
        ),
      );
      expect(config).toMatchObject({ hashsize: 16 * 1024 * 1024, automerge: 8 });
    },
  );

  it.each(cases)(
    "$label: fact_candidates' language index holds the language only, so ingest appends to it (graph migration 0010)",
    ({ version }) => {
      const columns = graph(version)
        .prepare("SELECT name FROM pragma_index_info('fact_candidates_by_language')")
        .pluck()
        .all();
      expect(columns).toEqual(['language']);
    },
  );

  it.each(cases)(
    "$label: the compiler reads a language's facts through the language index and sorts them in one pass",
    ({ version }) => {
      const plan = (
        graph(version).prepare(`EXPLAIN QUERY PLAN ${FACT_SQL}`).all('en') as Array<{ detail: string }>
      ).map((r) => r.detail);
      expect(plan.join('\n')).toContain('USING INDEX fact_candidates_by_language');
      expect(plan.filter((detail) => /TEMP B-TREE/.test(detail))).toEqual(['USE TEMP B-TREE FOR ORDER BY']);
    },
  );

  it('a read of the facts changed since a compile finds them by sequence and looks each one up by id, scanning no candidates', () => {
    const plan = (
      graph().prepare(`EXPLAIN QUERY PLAN ${FACTS_SINCE_SQL}`).all('0', '[]', 'en') as Array<{ detail: string }>
    ).map((r) => r.detail);
    // The language index would make each lookup a scan of the language's candidates (a planner
    // without statistics picks it for the equality on the language).
    expect(plan).toContain('SEARCH f USING INDEX fact_candidates_by_fact (<expr>=?) LEFT-JOIN');
    expect(plan.filter((detail) => /fact_candidates_by_language/.test(detail))).toEqual([]);
    expect(plan).toContain('SEARCH f USING INDEX search_facts_by_subject (<expr>=?)');
    expect(plan).toContain('SEARCH fact_candidates USING INDEX fact_candidates_by_seq (seq>?)');
    expect(plan).toContain('SEARCH f USING INDEX fact_candidates_by_item (item_key=?)');
    expect(plan.filter((detail) => /^SCAN (fact_candidates|f)\b/.test(detail))).toEqual([]);
  });
});

describe("the graph writer's connection (src/ingest/graph/statements.ts)", () => {
  it('keeps a 64 MiB page cache and its statement journals in memory; a read-only connection is left as it opened', () => {
    const writer = graph();
    graphStatements(writer);
    expect(writer.pragma('cache_size', { simple: true })).toBe(-65536);
    expect(writer.pragma('temp_store', { simple: true })).toBe(2); // MEMORY
    const reader = openDatabase(writer.name, { ...GRAPH_DB_OPTIONS, readonly: true });
    open.push(reader);
    graphStatements(reader);
    expect(reader.pragma('temp_store', { simple: true })).toBe(0); // DEFAULT
  });

  it("keeps the writer thread's statement journals in memory though it writes only inside transactions", () => {
    const file = graph().name;
    const writer = openGraphWriter(file);
    open.push(writer);
    writer.transaction(() => graphStatements(writer))();
    expect(writer.pragma('temp_store', { simple: true })).toBe(2); // MEMORY
    expect(writer.pragma('cache_size', { simple: true })).toBe(-65536);
  });

  it("sizes the writer thread's page cache to a quarter of the file, from 64 to 256 MiB", () => {
    const MiB = 1024 * 1024;
    expect(writerCacheKib(0)).toBe(65536);
    expect(writerCacheKib(256 * MiB)).toBe(65536);
    expect(writerCacheKib(512 * MiB)).toBe(131072);
    expect(writerCacheKib(900 * MiB)).toBe(230400);
    expect(writerCacheKib(1024 * MiB)).toBe(262144);
    expect(writerCacheKib(20 * 1024 * MiB)).toBe(262144);
  });

  it("sets the writer thread's page cache from its file when it opens and again when asked (before each transaction)", () => {
    const file = graph().name;
    const writer = openGraphWriter(file);
    open.push(writer);
    const bytes =
      (writer.pragma('page_count', { simple: true }) as number) *
      (writer.pragma('page_size', { simple: true }) as number);
    expect(writer.pragma('cache_size', { simple: true })).toBe(-writerCacheKib(bytes));
    writer.pragma('cache_size = -2000');
    fitWriterCache(writer);
    expect(writer.pragma('cache_size', { simple: true })).toBe(-writerCacheKib(bytes));
  });

  it('is usable when first asked for inside a transaction (an editorial change), where SQLite refuses temp_store', () => {
    const writer = graph();
    writer.exec('CREATE TEMP TABLE scratch (x)'); // SQLite refuses only once the connection's temp storage is open
    const statements = writer.transaction(() => graphStatements(writer))();
    expect(statements).toBe(graphStatements(writer));
    expect(writer.pragma('cache_size', { simple: true })).toBe(-65536);
  });
});
