import { newUlid } from '../../platform/ids/index.js';

/** Internal record ids: a short type prefix and a ULID (sortable, never a uuid). */
export type RecordKind = 'usr' | 'org' | 'web' | 'conn' | 'key' | 'raw' | 'xfr' | 'era' | 'aud' | 'inv';

export function newId(kind: RecordKind): string {
  return `${kind}_${newUlid()}`;
}

export function nowIso(now = Date.now()): string {
  return new Date(now).toISOString();
}
