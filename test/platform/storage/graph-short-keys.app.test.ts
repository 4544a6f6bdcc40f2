import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { WebsiteInfo } from '../../../src/control/records/website-info.js';
import { setEditorial } from '../../../src/ingest/graph/editorial.js';
import { resolveEditorialMatch } from '../../../src/ingest/graph/editorial-entries.js';
import { processRawItems } from '../../../src/ingest/graph/process-raw-items.js';
import { writeRawItems } from '../../../src/ingest/graph/raw-items.js';
import {
  rowsSinceParams,
  GRAPH_QUERIES,
  FACTS_SINCE_SQL,
  SqliteGraphReader,
} from '../../../src/ingest/graph/reader.js';
import { removeItem } from '../../../src/ingest/graph/remove-item.js';
import { readEntityFacts, readRelated } from '../../../src/output/knowledge/entities.js';
import { searchKnowledge } from '../../../src/output/knowledge/search.js';
import { GRAPH_DB_OPTIONS } from '../../../src/platform/storage/graph-db.js';
import { hashedKey, sameId } from '../../../src/platform/storage/hashed-key.js';
import { GRAPH_MIGRATIONS } from '../../../src/platform/storage/migrations/graph/index.js';
import { latestVersion, openDatabase, type Db } from '../../../src/platform/storage/sqlite.js';
import { makeTempDir, PROJECT_ROOT } from '../../helpers/paths.js';
import { bikePage, contentColumns } from '../../ingest/graph/helpers.js';

/** Graph migrations 0022 and 0023 (short keys) and the queries that read through their indexes. */
const WEBSITE = 'web_01JHKAB5P8S0T4W6X8Z0B2E4G6';
const site: WebsiteInfo = {
  websiteId: WEBSITE,
  domain: 'example.com',
  brand: 'Example',
  defaultLanguage: 'en',
  plan: 'pro',
  verification: { method: 'dns_txt', state: 'verified' },
  aliases: [],
};
const NOW = '2025-01-15T10:00:00.000Z';

/** The tables whose indexes begin with a hashed id, and the name a statement gives each. */
const KEYED_TABLES =
  /\b(fact_candidates|qa_facts|entity_contributors|relationship_contributors|relationships|item_contributions)\b(?:\s+(?:AS\s+)?(\w+))?/gi;
const SQL_WORDS = new Set([
  'WHERE',
  'ON',
  'JOIN',
  'SET',
  'USING',
  'LEFT',
  'CROSS',
  'INNER',
  'ORDER',
  'GROUP',
  'LIMIT',
  'VALUES',
  'WITH',
  'UNION',
  'DEFAULT',
  'SELECT',
]);

function ingest(db: Db, items: ReturnType<typeof page>[]): void {
  const written = writeRawItems(db, items, (i) => JSON.stringify(items[i]), {
    connectorId: 'conn_test',
    defaultLanguage: 'en',
    receivedAt: NOW,
  });
  const result = processRawItems(
    db,
    site,
    written.map((w) => w.rawContentId),
    { now: NOW },
  );
  expect(result).toMatchObject({ processed: items.length, failed: 0 });
}

const indexes = (db: Db, table: string) =>
  db.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? ORDER BY name`).pluck().all(table);

function rows(db: Db): Record<string, unknown[]> {
  return {
    fact_candidates: db
      .prepare(`SELECT rowid AS _rowid, ${contentColumns(db, 'fact_candidates')} FROM fact_candidates ORDER BY rowid`)
      .all(),
    qa_facts: db.prepare('SELECT fact_id, qa_id, item_key FROM qa_facts ORDER BY fact_id, qa_id, item_key').all(),
  };
}

function read(db: Db): unknown {
  const reader = new SqliteGraphReader(db);
  return reader.languages().map((lang) => ({ lang, facts: [...reader.facts(lang)], qa: [...reader.qa(lang)] }));
}

describe('graph migrations 0022 and 0023: short keys in the indexes on hashed ids', () => {
  const cleanups: Array<() => void> = [];
  afterEach(() => cleanups.splice(0).forEach((c) => c()));

  function graphFile(): string {
    const temp = makeTempDir();
    cleanups.push(temp.cleanup);
    const file = join(temp.dir, 'graphs', `${WEBSITE}.sqlite`);
    mkdirSync(join(file, '..'), { recursive: true });
    return file;
  }

  it('keeps every candidate with its rowid, every Q&A link, the search index and what the compiler reads', () => {
    const file = graphFile();
    copyFileSync(join(PROJECT_ROOT, 'test', 'data', 'graph-v21.sqlite'), file);
    const v21 = openDatabase(file, { migrations: GRAPH_MIGRATIONS.slice(0, 21), pageSize: 16_384 });
    expect(v21.pragma('user_version', { simple: true })).toBe(21);
    ingest(
      v21,
      Array.from({ length: 12 }, (_, i) => bikePage(i)),
    );
    // Rowids with gaps, as deletes leave them: the rebuilt table must keep them, not renumber.
    expect(removeItem(v21, site, 'product:p1')).toBe(true);
    const before = rows(v21);
    const readBefore = read(v21);
    const searchBefore = searchKnowledge(v21, { query: 'bike', limit: 50 });
    expect(before.qa_facts!.length).toBeGreaterThan(0);
    expect(indexes(v21, 'fact_candidates')).toContain('sqlite_autoindex_fact_candidates_1');
    v21.close();

    const db = openDatabase(file, { migrations: GRAPH_MIGRATIONS, pageSize: 16_384 });
    cleanups.unshift(() => db.close());
    expect(db.pragma('user_version', { simple: true })).toBe(latestVersion(GRAPH_MIGRATIONS));
    expect(rows(db)).toEqual(before);
    expect(read(db)).toEqual(readBefore);
    expect(searchKnowledge(db, { query: 'bike', limit: 50 })).toEqual(searchBefore);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(indexes(db, 'fact_candidates')).toEqual([
      'fact_candidates_by_fact',
      'fact_candidates_by_item',
      'fact_candidates_by_language',
      'fact_candidates_by_seq',
      'search_facts_by_subject',
    ]);
    expect(indexes(db, 'qa_facts')).toEqual(['qa_facts_by_fact', 'qa_facts_by_item']);
    // 0023: the other indexes that begin with a hashed id begin with its key.
    const keyed = db
      .prepare(
        `SELECT name FROM sqlite_master WHERE type = 'index' AND sql LIKE '%(coalesce(unhex(substr(%' ORDER BY name`,
      )
      .pluck()
      .all();
    expect(keyed).toEqual([
      'entity_contributors_best',
      'entity_contributors_importance',
      'entity_contributors_specific_type',
      'fact_candidates_by_fact',
      'item_contributions_by_source',
      'qa_facts_by_fact',
      'relationship_contributors_best',
      'relationships_by_from',
      'relationships_by_to',
      'search_facts_by_subject',
    ]);
    const triggers = db
      .prepare(`SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'fact_candidates' ORDER BY name`)
      .pluck()
      .all();
    expect(triggers).toEqual(['fact_candidate_gone', 'search_fact_deleted', 'search_fact_updated']);

    // The writers work on the migrated file: an item taken out queues its documents and leaves its records gone.
    expect(removeItem(db, site, 'product:p2')).toBe(true);
    expect(db.prepare(`SELECT count(*) FROM fact_candidates WHERE item_key = 'product:p2'`).pluck().get()).toBe(0);
    expect(db.prepare(`SELECT count(*) FROM records_gone WHERE kind = 'fact'`).pluck().get()).toBeGreaterThan(0);
    expect(db.prepare('SELECT count(*) FROM search_stale').pluck().get()).toBe(0);
  });

  it('an index key is the first 8 bytes of the hash, or the whole id when it is not a stable id', () => {
    const db = openDatabase(join(graphFile()), GRAPH_DB_OPTIONS);
    cleanups.unshift(() => db.close());
    const key = (id: string) => db.prepare(`SELECT ${hashedKey('@id')} AS k`).get({ id });
    expect(key('fact_0123456789abcdef01234567')).toEqual({ k: Buffer.from('0123456789abcdef', 'hex') });
    expect(key('entity_0123456789abcdef01234567')).toEqual({ k: Buffer.from('0123456789abcdef', 'hex') });
    // Not hex, or too short: the id itself, never NULL (a NULL key would find nothing).
    expect(key('fact_not-a-hash-at-all-but-text')).toEqual({ k: 'fact_not-a-hash-at-all-but-text' });
    expect(key('')).toEqual({ k: Buffer.alloc(0) });
    const same = db.prepare(`SELECT ${sameId("'fact_0123456789abcdef01234567'", '@id')} AS same`).pluck();
    expect(same.get({ id: 'fact_0123456789abcdef01234567' })).toBe(1);
    // Same key, other id: the full id decides.
    expect(same.get({ id: 'fact_0123456789abcdef99999999' })).toBe(0);
  });

  it('no statement the writers and readers prepare scans a table whose index begins with a hashed id', () => {
    const db = openDatabase(graphFile(), GRAPH_DB_OPTIONS);
    cleanups.unshift(() => db.close());
    const prepared = new Set<string>();
    const prepare = db.prepare.bind(db);
    db.prepare = ((sql: string) => (prepared.add(sql), prepare(sql))) as Db['prepare'];

    ingest(
      db,
      Array.from({ length: 6 }, (_, i) => bikePage(i)),
    );
    // Page 0 again, changed: its candidates are re-ranked against the stored ones.
    const changed = bikePage(0).html.replace('100.00', '99.00');
    expect(changed).not.toBe(bikePage(0).html);
    ingest(db, [{ ...bikePage(0), checksum: 'sha256:' + 'f'.repeat(64), html: changed }]);
    const facts = prepare(
      `SELECT fact_id, subject_entity_id FROM fact_candidates WHERE status = 'active'`,
    ).all() as Array<{
      fact_id: string;
      subject_entity_id: string;
    }>;
    const [first, second] = facts;
    setEditorial(db, first!.fact_id, { pinned: true });
    setEditorial(db, second!.fact_id, { hidden: true });
    setEditorial(db, second!.subject_entity_id, { hidden: true });
    expect(readEntityFacts(db, first!.subject_entity_id, { candidates: true }).length).toBeGreaterThan(0);
    expect(searchKnowledge(db, { query: 'bike', limit: 20 }).length).toBeGreaterThan(0);
    expect(resolveEditorialMatch(db, { item: 'product:p3' })).toHaveLength(1);
    expect(resolveEditorialMatch(db, { item: 'product:p3', predicate: 'sku' })).toHaveLength(1);
    expect(resolveEditorialMatch(db, { item: 'product:p3', predicate: 'sku', language: 'en' })).toHaveLength(1);
    expect(removeItem(db, site, 'product:p4')).toBe(true);
    const since = db.prepare(FACTS_SINCE_SQL).all(...rowsSinceParams(undefined), 'en');
    expect(since.length).toBeGreaterThan(0);
    const brand = prepare(`SELECT id FROM entities WHERE type = 'Brand'`).pluck().get() as string;
    expect(readRelated(db, brand, 2, 50).related.length).toBeGreaterThan(0);
    db.prepare(GRAPH_QUERIES.entities.sql).all(...rowsSinceParams(undefined), 'en');

    const scans: string[] = [];
    let checked = 0;
    for (const sql of prepared) {
      if (!/^\s*(SELECT|WITH|INSERT|UPDATE|DELETE)/i.test(sql)) continue;
      // The names these tables go by in the statement: their own, and their aliases.
      const names = new Set<string>();
      for (const [, table, alias] of sql.matchAll(KEYED_TABLES)) {
        names.add(table!);
        if (alias !== undefined && !SQL_WORDS.has(alias.toUpperCase())) names.add(alias);
      }
      if (names.size === 0) continue;
      checked++;
      const count = (sql.match(/\?/g) ?? []).length;
      const named = [...new Set(sql.match(/@\w+/g) ?? [])];
      const params =
        named.length > 0 ? [Object.fromEntries(named.map((n) => [n.slice(1), 'x']))] : Array(count).fill('[]');
      const plan = (prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as Array<{ detail: string }>).map(
        (r) => r.detail,
      );
      // A read of one of them is a lookup in an index or by rowid; anything else (SCAN, or a bare
      // SEARCH, which reads every row) is reported.
      for (const detail of plan) {
        const table = /^(?:SCAN|SEARCH) (\w+)/.exec(detail)?.[1];
        if (table === undefined || !names.has(table)) continue;
        if (/^SEARCH \w+ USING (?:COVERING INDEX|INDEX|INTEGER PRIMARY KEY) /.test(detail)) continue;
        scans.push(`${detail}: ${sql.slice(0, 160)}`);
      }
    }
    expect(checked).toBeGreaterThan(20);
    expect(scans).toEqual([]);
  });
});
