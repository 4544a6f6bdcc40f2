import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { compileFixture, loadFixture } from '../../src/compiler/fixture.js';
import { createMemorySink } from '../../src/compiler/sink.js';
import { NODE_SCHEMAS, renderJsonSchemaFile, schemaForPath } from '../../src/platform/node-format/index.js';

const ROOT = join(__dirname, '..', '..');

describe('schemas/*.schema.json', () => {
  it('are in sync with the zod source (run `npm run schemas` after changing src/platform/node-format)', () => {
    const committed = readdirSync(join(ROOT, 'schemas'))
      .filter((f) => f.endsWith('.schema.json'))
      .sort();
    expect(committed).toEqual(NODE_SCHEMAS.map((e) => `${e.name}.schema.json`).sort());
    for (const entry of NODE_SCHEMAS) {
      const text = readFileSync(join(ROOT, 'schemas', `${entry.name}.schema.json`), 'utf8');
      expect(text, `${entry.name}.schema.json is stale`).toBe(renderJsonSchemaFile(entry));
      const json = JSON.parse(text);
      expect(json.$comment).toMatch(/^Generated /);
      expect(json.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    }
  });

  it('freeze schema_version at 1.0.0 in every record and document schema', () => {
    for (const entry of NODE_SCHEMAS) {
      if (entry.name === 'openapi' || entry.name === 'schema-jsonld') continue;
      const json = JSON.parse(readFileSync(join(ROOT, 'schemas', `${entry.name}.schema.json`), 'utf8'));
      expect(json.properties.schema_version, entry.name).toMatchObject({ const: '1.0.0' });
      expect(json.required, entry.name).toContain('schema_version');
    }
  });

  it('accept every file of every compiled fixture with a standard JSON Schema 2020-12 validator (ajv)', () => {
    const ajv = new Ajv2020.default({ strict: false, allErrors: true });
    addFormats.default(ajv);
    const validators = new Map(
      NODE_SCHEMAS.map((e) => [
        e.name,
        ajv.compile(JSON.parse(readFileSync(join(ROOT, 'schemas', `${e.name}.schema.json`), 'utf8'))),
      ]),
    );
    for (const name of ['shop', 'blog', 'local-business', 'docs']) {
      const sink = createMemorySink();
      compileFixture(loadFixture(join(ROOT, 'fixtures', name)), sink);
      for (const [path, text] of sink.files) {
        const entry = schemaForPath(path);
        if (entry === undefined) continue;
        const validate = validators.get(entry.name)!;
        const values =
          entry.shape === 'line'
            ? text
                .split('\n')
                .filter(Boolean)
                .map((l) => JSON.parse(l))
            : [JSON.parse(text)];
        for (const value of values) expect(validate(value) ? null : { path, errors: validate.errors }).toBeNull();
      }
    }
    // The JSON Schemas reject what the export rules forbid, too.
    const fact = validators.get('fact')!;
    const ok = {
      id: 'fact_0123456789abcdef01234567',
      schema_version: '1.0.0',
      subject: 'Mug',
      predicate: 'price',
      value: 1,
      language: 'en',
      confidence: 1,
      provenance_method: 'cms_field',
    };
    expect(fact(ok)).toBe(true);
    expect(fact({ ...ok, pinned: true })).toBe(false);
    expect(fact({ ...ok, id: 'fact_3f2504e0-4f89-11d3-9a0c-0305e82c3301' })).toBe(false);
    expect(
      validators.get('relationship')!({
        id: 'rel_0123456789abcdef01234567',
        schema_version: '1.0.0',
        type: 'brand',
        from_entity_id: 'entity_0123456789abcdef01234567',
        to_entity_id: 'entity_0123456789abcdef01234567',
        resolution_status: 'dangling',
        language: 'en',
        confidence: 1,
        provenance_method: 'cms_field',
      }),
    ).toBe(false);
  });
});
