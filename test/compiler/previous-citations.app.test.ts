import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PreviousCitations } from '../../src/compiler/previous-citations.js';
import { makeTempDir } from '../helpers/paths.js';

const temp = makeTempDir('nodectl-previous-citations-');
afterAll(() => temp.cleanup());
let folders = 0;

/** A citation line as the compiler writes it. */
function citation(kind: 'fact' | 'entity' | 'relationship', id: string, confidence = 0.9): Buffer {
  return Buffer.from(
    JSON.stringify({
      schema_version: '1.0.0',
      record_id: `${kind === 'relationship' ? 'rel' : kind}_${id}`,
      record_kind: kind,
      source_id: 'src_000000000000000000000001',
      source_url: 'https://shop.example/a',
      retrieved_at: '2026-03-01T00:00:00Z',
      provenance_method: 'cms_field',
      confidence,
    }),
  );
}

/** A folder holding citations.jsonl with `lines`, as a previous version's. */
function previousWith(lines: Buffer[]): string {
  const dir = join(temp.dir, `v${++folders}`);
  mkdirSync(dir);
  writeFileSync(join(dir, 'citations.jsonl'), lines.map((line) => `${line}\n`).join(''));
  return dir;
}

describe("PreviousCitations: the previous version's citations read in the order they are written", () => {
  it('finds every line of an unchanged compile the same, across kinds', () => {
    const lines = [
      citation('fact', 'a'),
      citation('fact', 'b'),
      citation('entity', 'a'),
      citation('relationship', 'c'),
    ];
    const previous = new PreviousCitations(previousWith(lines));
    expect(lines.map((line) => previous.same(line))).toEqual([true, true, true, true]);
    expect(previous.same(citation('relationship', 'd'))).toBe(false);
    previous.close();
  });

  it('answers false for a changed citation, a new one and one after a gone one only where the bytes differ', () => {
    const previous = new PreviousCitations(
      previousWith([
        citation('fact', 'a'),
        citation('fact', 'b'), // gone in the new compile
        citation('fact', 'c'),
        citation('fact', 'e'),
        citation('entity', 'a'),
      ]),
    );
    expect(previous.same(citation('fact', 'a'))).toBe(true);
    expect(previous.same(citation('fact', 'c'))).toBe(true); // b passed over
    expect(previous.same(citation('fact', 'd'))).toBe(false); // new: e stays for the next line
    expect(previous.same(citation('fact', 'e', 0.5))).toBe(false); // changed
    expect(previous.same(citation('entity', 'a'))).toBe(true);
    previous.close();
  });

  it('never answers true for bytes the previous version does not hold', () => {
    const previous = new PreviousCitations(previousWith([citation('fact', 'a'), citation('entity', 'b')]));
    // A line of another shape (not the compiler's spelling) is not matched by its key.
    expect(previous.same(Buffer.from('{"record_id":"fact_a"}'))).toBe(false);
    expect(previous.same(citation('entity', 'a'))).toBe(false); // fact_a passed over, entity_b ahead
    expect(previous.same(citation('entity', 'b'))).toBe(true);
    previous.close();
  });

  it('answers false when the previous version has no citations.jsonl', () => {
    const dir = join(temp.dir, `v${++folders}`);
    mkdirSync(dir);
    const previous = new PreviousCitations(dir);
    expect(previous.same(citation('fact', 'a'))).toBe(false);
    previous.close();
  });
});
