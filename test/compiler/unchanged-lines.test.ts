import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { JsonlWriter } from '../../src/compiler/jsonl-writer.js';
import { createMemorySink } from '../../src/compiler/sink.js';

const Schema = z.strictObject({ id: z.string(), confidence: z.number().min(0).max(1).nullable().optional() });

/** A writer whose previous version says every line is unchanged, and the lines it was asked about. */
function writer() {
  const asked: string[] = [];
  const observed: string[] = [];
  const sink = createMemorySink();
  const w = new JsonlWriter<Record<string, unknown>>(sink, 'facts.en.jsonl', Schema, {
    observe: (_file, _id, line) => void observed.push(line.toString()),
    unchanged: (_file, _id, line) => {
      asked.push(line.toString());
      return true;
    },
  });
  return { w, asked, observed, sink };
}

describe('a line unchanged from a validated previous version', () => {
  it('is written without its schema check', () => {
    const { w, asked, observed } = writer();
    // Fails the schema (confidence above 1): only a previous version that held the same line lets it through.
    expect(w.offer({ id: 'fact_a', confidence: 2 }, 'fact_a')).toBeNull();
    expect(asked).toEqual(['{"id":"fact_a","confidence":2}']);
    expect(observed).toEqual(['{"id":"fact_a","confidence":2}']);
  });

  it('is checked when it holds null: JSON.stringify writes a number that is not finite as null', () => {
    const { w, asked } = writer();
    expect(w.offer({ id: 'fact_a', confidence: Number.NaN }, 'fact_a')?.path).toBe('confidence');
    expect(() => w.add({ id: 'fact_b', confidence: Number.POSITIVE_INFINITY }, 'fact_b')).toThrow(/fails its schema/);
    expect(asked).toEqual([]);
  });

  it('still goes through the policy checked after the schema', () => {
    const { w, sink } = writer();
    const problem = { path: 'id', message: 'refused by policy', issues: [] };
    expect(w.offer({ id: 'fact_a', confidence: 0.5 }, 'fact_a', () => problem)).toBe(problem);
    w.close();
    expect(sink.files.get('facts.en.jsonl')).toBe('');
  });
});

describe('a line written without an id (citations.jsonl)', () => {
  it('is asked of sameLine, and written without its schema check when it is the bytes of a previous line', () => {
    const asked: string[] = [];
    const sink = createMemorySink();
    const w = new JsonlWriter<Record<string, unknown>>(sink, 'citations.jsonl', Schema, {
      observe: () => {
        throw new Error('a line without an id is not observed');
      },
      sameLine: (file, line) => {
        asked.push(`${file} ${line.toString()}`);
        return line.includes('"kept"');
      },
    });
    // Both fail the schema (confidence above 1): only the one the previous version held goes through.
    w.add({ id: 'kept', confidence: 2 });
    expect(() => w.add({ id: 'new', confidence: 2 })).toThrow(/fails its schema/);
    expect(() => w.add({ id: 'kept', confidence: Number.NaN })).toThrow(/fails its schema/);
    w.close();
    expect(asked).toEqual([
      'citations.jsonl {"id":"kept","confidence":2}',
      'citations.jsonl {"id":"new","confidence":2}',
    ]);
    expect(sink.files.get('citations.jsonl')).toBe('{"id":"kept","confidence":2}\n');
  });
});
