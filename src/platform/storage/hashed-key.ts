/**
 * The short key a graph index holds for a stable record id (`<prefix>_<24 hex>`,
 * src/ingest/graph/stable-ids.ts): the first 16 hex digits of its hash as 8 bytes, or the id
 * itself when it is not of that form. Indexes on hashed ids are written all over at every
 * transaction, so their size is what a write costs (docs/graph.md "Random keys cost WAL"):
 * this key is a third of the text id's entry.
 *
 * A query finds a row through such an index only with the same expression on both sides, and
 * checks the full id as well, since two ids may share a key: use `sameId`.
 */
export function hashedKey(id: string): string {
  return `coalesce(unhex(substr(${id}, -24, 16)), ${id})`;
}

/**
 * `column` holds the id `value` (an SQL expression: a column, or one numbered parameter such as
 * `?1`, which is read twice), found through an index on hashedKey(column).
 */
export function sameId(column: string, value: string): string {
  return `${hashedKey(column)} = ${hashedKey(value)} AND ${column} = ${value}`;
}
