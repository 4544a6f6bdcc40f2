import * as sqliteVec from 'sqlite-vec';
import type { Db } from '../../platform/storage/index.js';

/**
 * The sqlite-vec extension (docs/decisions.md): loaded into each graph connection that writes or
 * searches vectors. Where it cannot load (a platform without its binary), vectors are off:
 * nothing is embedded, search answers keyword hits, and the reason is logged once.
 */
const loaded = new WeakMap<Db, boolean>();
let failure: string | undefined;

/** Loads sqlite-vec into `db` once; false (with vectorExtensionFailure() telling why) when it cannot load. */
export function loadVectorExtension(db: Db): boolean {
  const known = loaded.get(db);
  if (known !== undefined) return known;
  try {
    sqliteVec.load(db);
    loaded.set(db, true);
    return true;
  } catch (error) {
    failure = error instanceof Error ? error.message : String(error);
    loaded.set(db, false);
    return false;
  }
}

/** Why the extension did not load, once it failed to. */
export function vectorExtensionFailure(): string | undefined {
  return failure;
}
