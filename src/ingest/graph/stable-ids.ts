import { hash } from 'node:crypto';

export type StableIdPrefix = 'entity' | 'fact' | 'rel' | 'chunk' | 'qa' | 'src';

/**
 * A stable record id `<prefix>_<hash>`: the first 24 hex of sha256 over the website id and the
 * natural key parts (docs/contract.md#stable-ids). Parts are joined with a unit separator so that
 * ("a b", "c") and ("a", "b c") never collide. Same website and key, same id, in every version.
 * One-shot hash of the joined string: the same digest as feeding the parts one by one, at about
 * half the cost (a graph write computes some forty ids per item).
 */
export function stableId(
  prefix: StableIdPrefix,
  websiteId: string,
  ...naturalKey: ReadonlyArray<string | number>
): string {
  let text = websiteId;
  for (const part of naturalKey) text += '\u001f' + String(part);
  return `${prefix}_${hash('sha256', text).slice(0, 24)}`;
}

/** A uuid anywhere a stable id should be is a publish-integrity failure (node.uuid_leak). */
export const UUID_PATTERN = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
