import type { Manifest, ManifestFile } from '../../output/node-format/index.js';
import { fileKind, REFERENCE_FIELDS } from './checks.js';
import { RECORD_ORDER } from './scan-file.js';

/**
 * Which files of a node need not be checked again because a validated node (the store's live
 * version) holds the same bytes under the same path:
 * - unread: not opened at all. Only when nothing they depend on moved: the record files that
 *   define ids are all carried (so every reference resolves as it did), the manifest fields the
 *   documents are checked against are the same, and no file that is read needs the ids.
 * - trusted: read for their ids and references (checked against this node's ids), encoding and
 *   checksum, but their records skip the per-record checks (schema, uuid leaks, internal fields).
 * Every other file is checked in full.
 */
export interface CarriedFiles {
  unread: ReadonlySet<string>;
  trusted: ReadonlySet<string>;
}

export const NOTHING_CARRIED: CarriedFiles = { unread: new Set(), trusted: new Set() };

/** Checked against manifest.node_version and its label, which always differ between versions. */
const VERSION_BOUND = new Set(['versions.json', 'openapi.json']);

/** Whole-file documents whose checks look up record ids. */
const ID_DOCUMENTS = new Set(['schema.jsonld', 'embeddings-manifest.json']);

export function planCarriedFiles(manifest: Manifest, validated: Manifest): CarriedFiles {
  const before = new Map(validated.files.map((f) => [f.path, f]));
  const isCarried = (f: ManifestFile) => {
    const old = before.get(f.path);
    return (
      old !== undefined &&
      !VERSION_BOUND.has(f.path) &&
      old.checksum === f.checksum &&
      old.bytes === f.bytes &&
      old.records === f.records
    );
  };
  const carried = new Set(manifest.files.filter(isCarried).map((f) => f.path));
  const definesIds = (path: string) => RECORD_ORDER.includes(fileKind(path));
  const needsIds = (path: string) =>
    definesIds(path) || REFERENCE_FIELDS[fileKind(path)] !== undefined || ID_DOCUMENTS.has(path);

  const sameIds =
    sameList(
      manifest.files.filter((f) => definesIds(f.path)).map((f) => f.path),
      validated.files.filter((f) => definesIds(f.path)).map((f) => f.path),
    ) && manifest.files.every((f) => !definesIds(f.path) || carried.has(f.path));
  const sameContext =
    manifest.website_id === validated.website_id &&
    manifest.trust_tier === validated.trust_tier &&
    sameList(manifest.capabilities, validated.capabilities) &&
    sameList(manifest.languages, validated.languages) &&
    sameList(
      manifest.files.map((f) => f.path),
      validated.files.map((f) => f.path),
    );
  const readFilesNeedNoIds = manifest.files.every((f) => carried.has(f.path) || !needsIds(f.path));
  return sameIds && sameContext && readFilesNeedNoIds
    ? { unread: carried, trusted: new Set() }
    : { unread: new Set(), trusted: carried };
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');
}
