import { createHash } from 'node:crypto';

export type StableIdPrefix = 'entity' | 'fact' | 'rel' | 'chunk' | 'qa' | 'src';

/**
 * A stable record id `<prefix>_<hash>`: the first 24 hex of sha256 over the website id and the
 * natural key parts (docs/contract.md#stable-ids). Parts are joined with a unit separator so that
 * ("a b", "c") and ("a", "b c") never collide. Same website and key, same id, in every version.
 */
export function stableId(prefix: StableIdPrefix, websiteId: string, ...naturalKey: ReadonlyArray<string | number>): string {
  const hash = createHash('sha256');
  hash.update(websiteId);
  for (const part of naturalKey) hash.update('\u001f' + String(part));
  return `${prefix}_${hash.digest('hex').slice(0, 24)}`;
}

/** A uuid anywhere a stable id should be is a publish-integrity failure (node.uuid_leak). */
export const UUID_PATTERN = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
