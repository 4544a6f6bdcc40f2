import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { forEachLine } from '../../src/compiler/previous.js';
import { PreviousLines, PreviousOrderError } from '../../src/compiler/previous-lines.js';
import { makeTempDir } from '../helpers/paths.js';

const temp = makeTempDir('nodectl-previous-lines-');
afterAll(() => temp.cleanup());

/** Every line left, decoded. */
function readAll(lines: PreviousLines): Array<{ id: string; line: string }> {
  const out = [];
  for (let line = lines.take(); line !== null; line = lines.take())
    out.push({ id: line.id, line: line.line.toString() });
  return out;
}

describe('PreviousLines', () => {
  it('reads the lines readPreviousNode reads, across 1 MiB reads and multi-byte characters', () => {
    // About 3 MiB of lines with multi-byte text, so characters and lines straddle the reads.
    const lines: string[] = [];
    for (let i = 0; i < 12_000; i++) {
      const id = `fact_${String(i).padStart(6, '0')}`;
      lines.push(JSON.stringify({ id, text: `Grüße ☕ ${'ä€𝄞'.repeat(i % 97)} ${i}` }));
      if (i % 1000 === 0) lines.push('{"schema_version":"1.0"}');
    }
    writeFileSync(join(temp.dir, 'facts.en.jsonl'), lines.join('\n')); // no line feed at the end
    const expected: Array<{ id: string; line: string }> = [];
    forEachLine(join(temp.dir, 'facts.en.jsonl'), (line) => {
      const id = /^\{"id":"([^"]+)"/.exec(line)?.[1];
      if (id !== undefined) expected.push({ id, line });
    });
    // The lines as written: a line cut by a read, or a character cut by one, is read whole.
    expect(expected.map(({ line }) => line)).toEqual(lines.filter((line) => line.startsWith('{"id":')));
    const read = new PreviousLines(temp.dir, 'facts.en.jsonl');
    expect(read.peek()?.line.toString()).toEqual(expected[0]!.line);
    expect(readAll(read)).toEqual(expected);
    expect(read.take()).toBeNull();
  });

  it('reads a line longer than a read whole, with the multi-byte characters its reads cut', () => {
    const long = JSON.stringify({ id: 'chunk_a', text: '€𝄞ä'.repeat(300_000) }); // about 2.7 MiB
    const short = JSON.stringify({ id: 'chunk_b', text: 'Grüße' });
    writeFileSync(join(temp.dir, 'chunks.en.jsonl'), `${long}\n${short}\n`);
    const seen: string[] = [];
    forEachLine(join(temp.dir, 'chunks.en.jsonl'), (line) => seen.push(line));
    expect(seen).toEqual([long, short]);
    expect(readAll(new PreviousLines(temp.dir, 'chunks.en.jsonl'))).toEqual([
      { id: 'chunk_a', line: long },
      { id: 'chunk_b', line: short },
    ]);
  });

  it('reads nothing from a file that is not there', () => {
    expect(new PreviousLines(temp.dir, 'qa.en.jsonl').peek()).toBeNull();
  });

  it('refuses ids out of order, repeated or spelled with escapes', () => {
    for (const [name, text] of [
      ['b-then-a.jsonl', '{"id":"fact_b"}\n{"id":"fact_a"}\n'],
      ['twice.jsonl', '{"id":"fact_a"}\n{"id":"fact_a"}\n'],
      ['escaped.jsonl', '{"id":"fact_\\u0061"}\n'],
    ] as const) {
      writeFileSync(join(temp.dir, name), text);
      expect(() => readAll(new PreviousLines(temp.dir, name)), name).toThrow(PreviousOrderError);
    }
  });
});
