import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compileFixture, loadFixture } from '../../src/compiler/fixture.js';
import { assertValid } from '../../src/compiler/jsonl-writer.js';
import { createMemorySink } from '../../src/compiler/sink.js';
import {
  ChangeRecordSchema,
  FactRecordSchema,
  NODE_SCHEMAS,
  schemaForPath,
} from '../../src/output/node-format/index.js';

const ROOT = join(__dirname, '..', '..');

/** Every JSON value of every compiled fixture, with the schema that governs its file. */
function fixtureValues(): Array<{ name: string; schema: z.ZodType; value: Record<string, unknown> }> {
  const out: Array<{ name: string; schema: z.ZodType; value: Record<string, unknown> }> = [];
  for (const fixture of ['shop', 'blog', 'local-business', 'docs', 'minimal']) {
    const sink = createMemorySink();
    compileFixture(loadFixture(join(ROOT, 'fixtures', fixture)), sink);
    for (const [path, text] of sink.files) {
      const entry = schemaForPath(path);
      if (entry === undefined) continue;
      const values =
        entry.shape === 'line'
          ? text
              .split('\n')
              .filter(Boolean)
              .map((l) => JSON.parse(l))
          : [JSON.parse(text)];
      for (const value of values) out.push({ name: entry.name, schema: entry.schema, value });
    }
  }
  return out;
}

/** Values that sit on and around every bound, pattern and type of the node schemas. */
const PALETTE: unknown[] = [
  undefined,
  null,
  true,
  false,
  0,
  -1,
  0.5,
  1,
  1.5,
  2,
  5,
  6,
  60,
  59,
  -0.1,
  1.1,
  Number.NaN,
  Infinity,
  2 ** 53,
  3600,
  '',
  ' ',
  'x',
  'EUR',
  'eur',
  'en',
  'de-DE',
  'english',
  '1.0.0',
  '1.0.1',
  'snake_case',
  'CamelCase',
  'resolved',
  'dangling',
  'cms_field',
  'stable',
  'entity',
  'fact',
  'entity_0123456789abcdef',
  'fact_0123456789abcdef',
  'src_0123456789abcdef',
  'rel_0123456789abcdef',
  'qa_0123456789abcdef',
  'chunk_0123456789abcdef',
  'entity_0123',
  'entity_3f2504e0-4f89-11d3-9a0c-0305e82c3301',
  'sha256:' + 'a'.repeat(64),
  'sha256:' + 'A'.repeat(64),
  '2026-01-01',
  '2026-01-01T00:00:00Z',
  '2026-01-01T00:00:00.123Z',
  '2026-01-01T00:00:00+01:00',
  '2026-13-01',
  '01JBENCH0000000000000000AB',
  '2026-01-01.1',
  '2026-01-01.0',
  'https://a.example/x',
  'http://a.example',
  'https://',
  'ftp://a.example',
  'https://a.example/with space',
  'https://a.example/' + 'x'.repeat(4100),
  'manifest.json',
  'facts.en.jsonl',
  '../x.json',
  'manifest.json',
  'https://schema.org',
  'stdio',
  'cap.mcp',
  'cap.core',
  'not_computed',
  'Product',
  'product',
  '😀',
  '\ud83d',
  'é',
  [],
  ['x'],
  ['entity_0123456789abcdef'],
  ['fact_0123456789abcdef', 'fact_0123456789abcdef'],
  ['en'],
  [1],
  {},
  { a: 1 },
  { nested: { b: [1, 'two'] } },
  Object.create(null),
  new Date(0),
  new Map(),
  { [Symbol('s')]: 1 },
];

describe('record validation (z.compile of the node schemas)', () => {
  const values = fixtureValues();

  it('compiles every node schema without falling back to the runtime parser', () => {
    for (const entry of NODE_SCHEMAS) expect(() => z.compile(entry.schema, { strict: true }), entry.name).not.toThrow();
  });

  it('accepts every record and document of every compiled fixture', () => {
    expect(values.length).toBeGreaterThan(100);
    for (const { name, schema, value } of values)
      expect(z.compile(schema).validate(value), `${name} ${JSON.stringify(value).slice(0, 120)}`).toBe(true);
  });

  it('agrees with the runtime parser on every field of every record set to values around every bound, removed, or joined by an extra key', () => {
    const compiled = new Map(NODE_SCHEMAS.map((e) => [e.schema, z.compile(e.schema)]));
    const samples = new Map<string, { schema: z.ZodType; value: Record<string, unknown> }>();
    for (const v of values) samples.set(`${v.name} ${Object.keys(v.value).sort().join(',')}`, v);
    let compared = 0;
    const compare = (name: string, schema: z.ZodType, candidate: unknown) => {
      expect(
        compiled.get(schema)!.validate(candidate),
        `${name}: ${String(JSON.stringify(candidate)).slice(0, 200)}`,
      ).toBe(schema.safeParse(candidate).success);
      compared++;
    };
    for (const { schema, value } of samples.values()) {
      const name = NODE_SCHEMAS.find((e) => e.schema === schema)!.name;
      const keys = new Set([...Object.keys(value), ...Object.keys((schema as unknown as { shape: object }).shape)]);
      compare(name, schema, { ...value, extra_field: 1 });
      for (const key of keys) {
        const { [key]: _, ...without } = value;
        compare(name, schema, without);
        for (const replacement of PALETTE) compare(name, schema, { ...value, [key]: replacement });
      }
    }
    for (const replacement of PALETTE) for (const entry of NODE_SCHEMAS) compare(entry.name, entry.schema, replacement);
    expect(compared).toBeGreaterThan(10_000);
  });

  it('names the first problem of an invalid record, as the runtime parser reports it', () => {
    const fact = {
      id: 'fact_0123456789abcdef',
      schema_version: '1.0.0',
      subject: 'Mug',
      predicate: 'price',
      value: 1,
      language: 'en',
      confidence: 2,
      provenance_method: 'cms_field',
    };
    expect(() => assertValid(FactRecordSchema, fact, 'facts.en.jsonl line 1')).toThrow(
      expect.objectContaining({
        code: 'publish.validation_failed',
        message: expect.stringMatching(/^facts\.en\.jsonl line 1 fails its schema: confidence: /),
      }),
    );
  });

  it('leaves the uuid check whole for a record that passes its schema (a file path may hold a uuid)', () => {
    const change = {
      schema_version: '1.0.0',
      change: 'added',
      record_kind: 'file',
      record_id: 'a3f2504e0-4f89-11d3-9a0c-0305e82c3301.json',
      file: 'a3f2504e0-4f89-11d3-9a0c-0305e82c3301.json',
    };
    expect(ChangeRecordSchema.safeParse(change).success).toBe(true);
    expect(() => assertValid(ChangeRecordSchema, change, 'changes.jsonl line 1')).toThrow(
      expect.objectContaining({ code: 'node.uuid_leak' }),
    );
  });
});
