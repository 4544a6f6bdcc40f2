import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { patchNode } from '../../../src/output/publish/patch.js';
import type { Manifest } from '../../../src/platform/node-format/index.js';
import { makeTempDir, PROJECT_ROOT } from '../../helpers/paths.js';

const temp = makeTempDir('nodectl-patch-');
afterAll(() => temp.cleanup());

const LIVE = '01KJPY44E0C2W0G5KF43VGYHN0';

/** A copy of the shop node whose changes.jsonl is `lines`, its manifest, and a live version one file differs from. */
function nodeWithChanges(name: string, lines: string[]) {
  const dir = join(temp.dir, name);
  cpSync(join(PROJECT_ROOT, 'golden', 'shop'), dir, { recursive: true });
  writeFileSync(join(dir, 'changes.jsonl'), lines.map((line) => line + '\n').join(''));
  const compiled = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Manifest;
  const live: Manifest = {
    ...compiled,
    node_version: LIVE,
    files: compiled.files.map((f) =>
      f.path === 'facts.en.jsonl' ? { ...f, checksum: `sha256:${'0'.repeat(64)}` } : f,
    ),
  };
  return { dir, compiled, live };
}

const change = (id: string, since: string, text = '') =>
  JSON.stringify({
    schema_version: '1.0.0',
    change: 'changed',
    record_kind: 'fact',
    record_id: id,
    file: 'facts.en.jsonl',
    content_hash: `sha256:${'a'.repeat(64)}`,
    previous_content_hash: `sha256:${'b'.repeat(64)}`,
    since_version: since,
    ...(text === '' ? {} : { note: text }),
  });

describe('patchNode: changes.jsonl, read a line at a time', () => {
  it('keeps the record lines measured against the live version, then the file lines, and counts them', () => {
    // A line longer than a read (1 MiB), with characters of 2 to 4 bytes a read may cut.
    const lines = [change('fact_a', LIVE), change('fact_b', LIVE, '€𝄞ä'.repeat(200_000)), change('fact_c', LIVE)];
    const { dir, compiled, live } = nodeWithChanges('kept', lines);
    const patched = patchNode(dir, compiled, live, [], '2026-01-01.1');
    expect(patched.droppedRecordChanges).toBe(false);
    const body = patched.bodies.get('changes.jsonl')!.toString('utf8').split('\n');
    expect(body.slice(0, 3)).toEqual(lines);
    expect(JSON.parse(body[3]!)).toMatchObject({
      record_kind: 'file',
      record_id: 'facts.en.jsonl',
      since_version: LIVE,
    });
    expect(body).toHaveLength(5); // three records, one file, and the empty string after the last line feed
    expect(patched.manifest.files.find((f) => f.path === 'changes.jsonl')!.records).toBe(4);
  });

  it('drops every record line when one was measured against another version', () => {
    const lines = [change('fact_a', LIVE), change('fact_b', '01KJPY44E0C2W0G5KF43VGYHN9'), change('fact_c', LIVE)];
    const { dir, compiled, live } = nodeWithChanges('dropped', lines);
    const patched = patchNode(dir, compiled, live, [], '2026-01-01.1');
    expect(patched.droppedRecordChanges).toBe(true);
    const body = patched.bodies.get('changes.jsonl')!.toString('utf8');
    expect(body.split('\n').map((line) => (line === '' ? '' : JSON.parse(line).record_kind))).toEqual(['file', '']);
    expect(patched.manifest.files.find((f) => f.path === 'changes.jsonl')!.records).toBe(1);
  });
});
