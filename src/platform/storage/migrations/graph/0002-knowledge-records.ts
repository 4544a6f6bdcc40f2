import type { Migration } from '../../sqlite.js';

/** The knowledge records the extractor derives from raw items, and their editorial state. */
export const migration: Migration = {
  version: 2,
  name: 'knowledge records',
  up: (db) => {
    // Contributor tables hold what each item said (keyed by item_key); the record tables
    // (entities, relationships, sources) are materialised from them, so replacing or removing
    // one item touches only its own rows plus a recompute of the natural keys it named.
    db.exec(`
      CREATE TABLE item_contributions (
        item_key TEXT PRIMARY KEY,
        primary_entity_id TEXT NOT NULL,
        language TEXT NOT NULL,
        source_id TEXT NOT NULL,
        url TEXT NOT NULL,
        canonical_url TEXT,
        title TEXT,
        content_type TEXT NOT NULL,
        last_seen_at TEXT NOT NULL,
        checksum TEXT NOT NULL,
        warnings TEXT NOT NULL DEFAULT '[]'
      );
      CREATE INDEX item_contributions_by_source ON item_contributions(source_id, last_seen_at DESC, item_key);
      CREATE INDEX item_contributions_by_entity ON item_contributions(primary_entity_id);

      CREATE TABLE sources (
        id TEXT PRIMARY KEY,
        url TEXT NOT NULL,
        canonical_url TEXT,
        title TEXT,
        content_type TEXT NOT NULL,
        last_seen_at TEXT NOT NULL,
        checksum TEXT NOT NULL,
        language TEXT NOT NULL,
        trust REAL NOT NULL
      );

      CREATE TABLE entity_contributors (
        entity_id TEXT NOT NULL,
        item_key TEXT NOT NULL,
        type TEXT NOT NULL,
        canonical_key TEXT NOT NULL,
        name TEXT NOT NULL,
        language TEXT NOT NULL,
        language_rank INTEGER NOT NULL,
        confidence REAL NOT NULL,
        provenance_method TEXT NOT NULL,
        provenance_rank INTEGER NOT NULL,
        importance INTEGER NOT NULL,
        attributes TEXT NOT NULL,
        source_id TEXT,
        source_url TEXT,
        PRIMARY KEY (entity_id, item_key)
      );
      CREATE INDEX entity_contributors_best ON entity_contributors(entity_id, language_rank, provenance_rank, confidence DESC, item_key);
      CREATE INDEX entity_contributors_importance ON entity_contributors(entity_id, importance);
      CREATE INDEX entity_contributors_by_item ON entity_contributors(item_key);

      CREATE TABLE entities (
        id TEXT PRIMARY KEY,
        type TEXT NOT NULL,
        canonical_key TEXT NOT NULL,
        name TEXT NOT NULL,
        language TEXT NOT NULL,
        confidence REAL NOT NULL,
        provenance_method TEXT NOT NULL,
        source_id TEXT,
        source_url TEXT,
        importance INTEGER NOT NULL,
        attributes TEXT NOT NULL,
        -- The contributor the name and attributes were taken from.
        item_key TEXT NOT NULL
      );
      CREATE INDEX entities_by_language ON entities(language, id);

      CREATE TABLE fact_candidates (
        fact_id TEXT NOT NULL,
        item_key TEXT NOT NULL,
        ordinal INTEGER NOT NULL,
        subject TEXT NOT NULL,
        subject_entity_id TEXT NOT NULL,
        predicate TEXT NOT NULL,
        value TEXT NOT NULL,
        language TEXT NOT NULL,
        confidence REAL NOT NULL,
        provenance_method TEXT NOT NULL,
        provenance_rank INTEGER NOT NULL,
        unit TEXT,
        currency TEXT,
        display TEXT,
        importance INTEGER NOT NULL,
        freshness TEXT NOT NULL,
        valid_from TEXT,
        valid_until TEXT,
        source_id TEXT,
        source_url TEXT,
        last_seen_at TEXT NOT NULL,
        -- 'active' for the one survivor of fact_id, 'superseded' for the others.
        status TEXT NOT NULL CHECK (status IN ('active','superseded','merged')),
        -- Position in the survivor order (0 = survivor).
        rank INTEGER NOT NULL,
        PRIMARY KEY (fact_id, item_key, ordinal)
      );
      CREATE INDEX fact_candidates_by_item ON fact_candidates(item_key);
      CREATE INDEX fact_candidates_by_language ON fact_candidates(language, fact_id, rank);

      CREATE TABLE relationship_contributors (
        rel_id TEXT NOT NULL,
        item_key TEXT NOT NULL,
        type TEXT NOT NULL,
        from_entity_id TEXT NOT NULL,
        to_ref TEXT NOT NULL,
        to_type TEXT NOT NULL,
        to_canonical_key TEXT NOT NULL,
        language TEXT NOT NULL,
        language_rank INTEGER NOT NULL,
        confidence REAL NOT NULL,
        provenance_method TEXT NOT NULL,
        provenance_rank INTEGER NOT NULL,
        source_id TEXT,
        source_url TEXT,
        PRIMARY KEY (rel_id, item_key)
      );
      CREATE INDEX relationship_contributors_best ON relationship_contributors(rel_id, language_rank, provenance_rank, confidence DESC, item_key);
      CREATE INDEX relationship_contributors_by_item ON relationship_contributors(item_key);

      CREATE TABLE relationships (
        id TEXT PRIMARY KEY,
        type TEXT NOT NULL,
        from_entity_id TEXT NOT NULL,
        -- The target's entity id (a hash of its natural key), whether or not it exists yet.
        to_ref TEXT NOT NULL,
        to_type TEXT NOT NULL,
        to_canonical_key TEXT NOT NULL,
        to_entity_id TEXT,
        resolution_status TEXT NOT NULL CHECK (resolution_status IN ('resolved','dangling')),
        language TEXT NOT NULL,
        confidence REAL NOT NULL,
        provenance_method TEXT NOT NULL,
        source_id TEXT,
        source_url TEXT
      );
      CREATE INDEX relationships_by_to ON relationships(to_ref);
      CREATE INDEX relationships_by_from ON relationships(from_entity_id);
      CREATE INDEX relationships_by_language ON relationships(language, id);

      CREATE TABLE chunks (
        id TEXT PRIMARY KEY,
        item_key TEXT NOT NULL,
        position INTEGER NOT NULL,
        language TEXT NOT NULL,
        text TEXT NOT NULL,
        heading_path TEXT NOT NULL,
        tokens_estimate INTEGER NOT NULL,
        -- Entity ids the chunk mentions (JSON array); only existing ones are read back.
        mention_ids TEXT NOT NULL,
        source_id TEXT
      );
      CREATE INDEX chunks_by_item ON chunks(item_key);
      CREATE INDEX chunks_by_language ON chunks(language, id);

      CREATE TABLE qa (
        id TEXT NOT NULL,
        item_key TEXT NOT NULL,
        question TEXT NOT NULL,
        answer TEXT NOT NULL,
        language TEXT NOT NULL,
        fact_ids TEXT NOT NULL,
        entity_ids TEXT NOT NULL,
        -- {factId: value JSON or null}: the values the answer was made from.
        fact_values TEXT NOT NULL,
        confidence REAL NOT NULL,
        provenance_method TEXT NOT NULL,
        stale INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (id, item_key)
      );
      CREATE INDEX qa_by_item ON qa(item_key);
      CREATE INDEX qa_by_language ON qa(language, id);
      CREATE TABLE qa_facts (
        fact_id TEXT NOT NULL,
        qa_id TEXT NOT NULL,
        item_key TEXT NOT NULL,
        PRIMARY KEY (fact_id, qa_id, item_key)
      ) WITHOUT ROWID;
      CREATE INDEX qa_facts_by_item ON qa_facts(item_key);

      -- Editorial state by stable record id; never touched by re-ingestion.
      CREATE TABLE editorial (
        record_id TEXT PRIMARY KEY,
        hidden INTEGER NOT NULL DEFAULT 0,
        pinned INTEGER NOT NULL DEFAULT 0,
        -- For a pinned fact: the item whose candidate is pinned (NULL: every candidate).
        pinned_item_key TEXT,
        editorial_status TEXT CHECK (editorial_status IN ('draft','reviewed','approved','rejected')),
        reviewed_by TEXT,
        original_value TEXT
      );
    `);
  },
};
