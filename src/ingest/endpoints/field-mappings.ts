import { createHash } from 'node:crypto';
import { AppError } from '../../platform/errors/app-error.js';
import type { FieldMapping } from '../../platform/contract/ingest-item.js';
import type { SchemaResult } from '../../platform/contract/ingest-results.js';
import type { Db } from '../../platform/storage/sqlite.js';

interface MappingRow {
  source_path: string;
  target: FieldMapping['target'];
  attribute_name: string | null;
  provenance_method: FieldMapping['provenance_method'];
}

function readMappings(db: Db, websiteId: string): FieldMapping[] {
  return (
    db
      .prepare(
        'SELECT source_path, target, attribute_name, provenance_method FROM field_mappings WHERE website_id = ? ORDER BY source_path',
      )
      .all(websiteId) as MappingRow[]
  ).map((r) => ({
    source_path: r.source_path,
    target: r.target,
    ...(r.attribute_name !== null ? { attribute_name: r.attribute_name } : {}),
    provenance_method: r.provenance_method,
  }));
}

/** A content version of the mapping set: changes exactly when the mappings change. */
function mappingsVersion(mappings: readonly FieldMapping[]): string {
  return 'mv_' + createHash('sha256').update(JSON.stringify(mappings)).digest('hex').slice(0, 16);
}

/**
 * Adds field mappings for a website. A mapping for a source_path already mapped to a different
 * target or attribute is 409 ingest.schema_conflict and nothing is stored; an identical one is a
 * no-op. Answers with every mapping of the website and their version.
 */
export function upsertFieldMappings(
  db: Db,
  websiteId: string,
  mappings: readonly FieldMapping[],
  nowMs: number,
): SchemaResult {
  const select = db.prepare(
    'SELECT source_path, target, attribute_name, provenance_method FROM field_mappings WHERE website_id = ? AND source_path = ?',
  );
  const insert = db.prepare(
    'INSERT INTO field_mappings (website_id, source_path, target, attribute_name, provenance_method, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const at = new Date(nowMs).toISOString();
  db.transaction(() => {
    const conflicts: Array<{
      source_path: string;
      existing: { target: string; attribute_name: string | null };
      requested: { target: string; attribute_name: string | null };
    }> = [];
    const seen = new Map<string, FieldMapping>();
    for (const m of mappings) {
      const attr = m.target === 'attribute' ? (m.attribute_name ?? null) : null;
      const prior = seen.get(m.source_path);
      const row = prior
        ? { target: prior.target, attribute_name: prior.target === 'attribute' ? (prior.attribute_name ?? null) : null }
        : (select.get(websiteId, m.source_path) as MappingRow | undefined);
      if (row && (row.target !== m.target || (row.attribute_name ?? null) !== attr)) {
        conflicts.push({
          source_path: m.source_path,
          existing: { target: row.target, attribute_name: row.attribute_name ?? null },
          requested: { target: m.target, attribute_name: attr },
        });
        continue;
      }
      if (!row) insert.run(websiteId, m.source_path, m.target, attr, m.provenance_method, at);
      seen.set(m.source_path, m);
    }
    if (conflicts.length > 0) {
      throw new AppError(
        'ingest.schema_conflict',
        `${conflicts.length} mapping(s) conflict with existing ones (${conflicts.map((c) => c.source_path).join(', ')}); nothing was stored. Keep the existing target or map another source_path.`,
        { details: { conflicts } },
      );
    }
  }).immediate();
  const all = readMappings(db, websiteId);
  return { website_id: websiteId, mappings: all, mappings_version: mappingsVersion(all) };
}
