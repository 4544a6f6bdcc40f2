import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { WebsiteInfo } from '../../../src/control/records/website-info.js';
import { processRawItems } from '../../../src/ingest/graph/process-raw-items.js';
import { writeRawItems } from '../../../src/ingest/graph/raw-items.js';
import { rowsSinceParams, GRAPH_QUERIES, SqliteGraphReader } from '../../../src/ingest/graph/reader.js';
import { removeItem } from '../../../src/ingest/graph/remove-item.js';
import { GRAPH_MIGRATIONS } from '../../../src/platform/storage/migrations/graph/index.js';
import { latestVersion, openDatabase, type Db } from '../../../src/platform/storage/sqlite.js';
import { makeTempDir, PROJECT_ROOT } from '../../helpers/paths.js';
import { bikePage, contentColumns } from '../../ingest/graph/helpers.js';

/** Graph migration 0013 (fewer hashed indexes), from the previous version's fixture with records written into it. */
const WEBSITE = 'web_01JHKAB5P8S0T4W6X8Z0B2E4G6';
const site: WebsiteInfo = {
  websiteId: WEBSITE,
  domain: 'example.com',
  brand: 'Example',
  defaultLanguage: 'en',
  plan: 'pro',
  verification: { method: 'dns_txt', state: 'verified' },
  aliases: ['www.example.com'],
};
const NOW = '2025-01-15T10:00:00.000Z';

/** Every row of the tables the migration made again or re-indexed, with its rowid. */
function rows(db: Db): Record<string, unknown[]> {
  const tables = [
    'entity_contributors',
    'relationship_contributors',
    'fact_candidates',
    'entities',
    'relationships',
    'chunks',
    'qa',
  ];
  return Object.fromEntries(
    tables.map((t) => [
      t,
      db.prepare(`SELECT rowid AS _rowid, ${contentColumns(db, t)} FROM ${t} ORDER BY rowid`).all(),
    ]),
  );
}

/** What the compiler reads, language by language, in its order. */
function read(db: Db): unknown {
  const reader = new SqliteGraphReader(db);
  return reader.languages().map((lang) => ({
    lang,
    entities: [...reader.entities(lang)],
    facts: [...reader.facts(lang)],
    relationships: [...reader.relationships(lang)],
    chunks: [...reader.chunks(lang)],
    qa: [...reader.qa(lang)],
  }));
}

const indexes = (db: Db, table: string) =>
  db
    .prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? ORDER BY name`)
    .all(table) as Array<{ name: string; sql: string | null }>;

describe('graph migration 0013: fewer indexes on hashed keys', () => {
  const cleanups: Array<() => void> = [];
  afterEach(() => cleanups.splice(0).forEach((c) => c()));

  it('keeps every row and rowid and what the compiler reads, and drops the indexes no query needs', () => {
    const temp = makeTempDir();
    cleanups.push(temp.cleanup);
    const file = join(temp.dir, 'graphs', `${WEBSITE}.sqlite`);
    mkdirSync(join(file, '..'), { recursive: true });
    copyFileSync(join(PROJECT_ROOT, 'test', 'data', 'graph-v12.sqlite'), file);

    // At version 12, the current writers fill the records (their columns are the same); raw rows
    // go in with version 12's columns (raw_items has one more since 0014).
    const v12 = openDatabase(file, { migrations: GRAPH_MIGRATIONS.slice(0, 12), pageSize: 16_384 });
    expect(v12.pragma('user_version', { simple: true })).toBe(12);
    // The current writers also number the chunks, entities, fact candidates, relationships, Q&A and
    // sources they write, and prune records_gone (graph migrations 0015 to 0021): version 12 has those
    // tables and columns for the writes and reads below, and loses them before it is migrated.
    v12.exec(`CREATE TABLE graph_state (id INTEGER PRIMARY KEY CHECK (id = 1), graph_id TEXT NOT NULL, seq INTEGER NOT NULL,
        gone_floor INTEGER NOT NULL DEFAULT 0);
      INSERT INTO graph_state (id, graph_id, seq) VALUES (1, 'test', 0);
      CREATE TABLE records_gone (seq INTEGER NOT NULL, kind TEXT NOT NULL, id TEXT NOT NULL, source_id TEXT);
      ALTER TABLE chunks ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE entities ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE fact_candidates ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE relationships ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE qa ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE sources ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;`);
    const items = [
      ...Array.from({ length: 12 }, (_, i) => bikePage(i, 'en')),
      ...[20, 21, 22].map((i) => bikePage(i, 'de')),
    ];
    const insertRaw = v12.prepare(
      `INSERT INTO raw_items (raw_content_id, item_type, item_id, checksum, url, language, body, state, connector_id, received_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', 'conn_test', ?)`,
    );
    const rawContentIds = items.map((item, i) => {
      const id = `raw_test_${String(i).padStart(2, '0')}`;
      insertRaw.run(id, item.type, item.id, item.checksum, item.url, item.language ?? 'en', JSON.stringify(item), NOW);
      return id;
    });
    const result = processRawItems(v12, site, rawContentIds, { now: NOW });
    expect(result).toMatchObject({ processed: items.length, failed: 0 });
    // Rowids with gaps, as deletes leave them: the rebuilt tables must keep them, not renumber.
    expect(removeItem(v12, site, 'product:p1')).toBe(true);
    const before = rows(v12);
    const readBefore = read(v12);
    expect(before.entity_contributors!.length).toBeGreaterThan(items.length);
    expect(before.relationship_contributors!.length).toBeGreaterThan(0);
    expect(indexes(v12, 'entity_contributors').map((i) => i.name)).toContain('sqlite_autoindex_entity_contributors_1');
    v12.exec(
      'DROP TABLE graph_state; DROP TABLE records_gone; ALTER TABLE chunks DROP COLUMN seq; ALTER TABLE entities DROP COLUMN seq; ALTER TABLE fact_candidates DROP COLUMN seq;' +
        ' ALTER TABLE relationships DROP COLUMN seq; ALTER TABLE qa DROP COLUMN seq; ALTER TABLE sources DROP COLUMN seq;',
    );
    v12.close();

    const db = openDatabase(file, { migrations: GRAPH_MIGRATIONS, pageSize: 16_384 });
    cleanups.unshift(() => db.close());
    expect(db.pragma('user_version', { simple: true })).toBe(latestVersion(GRAPH_MIGRATIONS));
    expect(rows(db)).toEqual(before);
    expect(read(db)).toEqual(readBefore);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');

    expect(indexes(db, 'entity_contributors').map((i) => i.name)).toEqual([
      'entity_contributors_best',
      'entity_contributors_by_item',
      'entity_contributors_importance',
      'entity_contributors_specific_type',
    ]);
    expect(indexes(db, 'relationship_contributors').map((i) => i.name)).toEqual([
      'relationship_contributors_best',
      'relationship_contributors_by_item',
    ]);
    expect(indexes(db, 'item_contributions').map((i) => i.name)).not.toContain('item_contributions_by_entity');
    for (const table of ['entities', 'relationships', 'chunks', 'qa'])
      expect(indexes(db, table).find((i) => i.name === `${table}_by_language`)?.sql).toMatch(/\(language\)$/);
    // The compiler's reads of a language still read that language only, not the whole table.
    for (const query of [GRAPH_QUERIES.entities, GRAPH_QUERIES.relationships, GRAPH_QUERIES.chunks, GRAPH_QUERIES.qa]) {
      const params = [...rowsSinceParams(undefined), 'en'];
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${query.sql}`).all(...params) as Array<{ detail: string }>)
        .map((r) => r.detail)
        .join('\n');
      expect(plan).toMatch(/SEARCH \w+ USING INDEX \w+_by_language \(language=\?\)/);
    }

    // The writers work on the migrated file: an item again, changed, replaces its rows.
    const again = { ...bikePage(3, 'en'), checksum: 'sha256:' + 'f'.repeat(64) };
    again.html = again.html.replace('steel frame', 'carbon frame');
    const [rewritten] = writeRawItems(db, [again], () => JSON.stringify(again), {
      connectorId: 'conn_test',
      defaultLanguage: 'en',
      receivedAt: NOW,
    });
    expect(processRawItems(db, site, [rewritten!.rawContentId], { now: NOW })).toMatchObject({ processed: 1 });
    const chunks = [...new SqliteGraphReader(db).chunks('en')];
    expect(chunks.some((c) => c.text.includes('carbon frame'))).toBe(true);
    expect(chunks.map((c) => c.id)).toEqual(chunks.map((c) => c.id).sort());
    // Its search documents were refreshed through the re-made triggers and statements.
    const hits = db.prepare(`SELECT rowid FROM search_fts WHERE search_fts MATCH 'carbon'`).pluck().all() as number[];
    expect(hits.length).toBeGreaterThan(0);
    expect(db.prepare('SELECT COUNT(*) FROM search_stale').pluck().get()).toBe(0);
  });
});
