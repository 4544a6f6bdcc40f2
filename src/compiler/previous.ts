import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ManifestSchema, VersionsSchema, type VersionEntry } from '../platform/node-format/index.js';
import { forEachLine } from '../platform/storage/index.js';
import { lineHash } from './jsonl-writer.js';
import { ForwardLines, leadingId } from './previous-lines.js';
import type { PreviousNode } from './types.js';

const RECORD_FILE = /^((entities|facts|relationships|chunks|qa)\.[A-Za-z0-9-]+|sources)\.jsonl$/;

export { forEachLine };

/**
 * Reads what the compiler needs of a previous node from its directory: its manifest (version,
 * label, files) and its versions.json history. Its record files are read by the compile that
 * gets it, alongside the files it writes (the directory must stay until the compile is done);
 * with `hashRecords`, every record line is hashed here instead (the compile's fallback for a
 * previous node whose record files are not in id order). Undefined when the directory holds no
 * manifest.json. `validated`: the node passed validateNode (PreviousNode.validated).
 */
export async function readPreviousNode(
  dir: string,
  options: { hashRecords?: boolean; validated?: boolean } = {},
): Promise<PreviousNode | undefined> {
  const manifestPath = join(dir, 'manifest.json');
  if (!existsSync(manifestPath)) return undefined;
  const manifest = ManifestSchema.parse(JSON.parse(readFileSync(manifestPath, 'utf8')));
  let history: VersionEntry[] = [];
  const versionsPath = join(dir, 'versions.json');
  if (existsSync(versionsPath)) {
    const versions = VersionsSchema.safeParse(JSON.parse(readFileSync(versionsPath, 'utf8')));
    if (versions.success) history = versions.data.history;
  }
  const base = {
    nodeVersion: manifest.node_version,
    label: manifest.node_version_label ?? null,
    generatedAt: manifest.generated_at,
    history,
    files: manifest.files.map((f) => ({
      path: f.path,
      checksum: f.checksum,
      ...(f.records === undefined ? {} : { records: f.records }),
    })),
  };
  if (options.hashRecords !== true)
    return {
      ...base,
      recordsDir: dir,
      recordFiles: manifest.files.map((f) => f.path).filter((path) => RECORD_FILE.test(path)),
      ...(options.validated === true ? { validated: true } : {}),
    };
  const recordHashes = new Map<string, string>();
  for (const file of manifest.files) {
    if (!RECORD_FILE.test(file.path) || !existsSync(join(dir, file.path))) continue;
    const lines = new ForwardLines(join(dir, file.path));
    for (let line = lines.next(); line !== null; line = lines.next()) {
      const id = leadingId(line);
      if (id !== undefined) recordHashes.set(`${file.path}\u0000${id}`, lineHash(line));
    }
  }
  return { ...base, recordHashes };
}
