import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compileToDirectory } from '../../src/compiler/directory.js';
import { createMemoryGraphReader, type MemoryGraph } from '../../src/compiler/memory-reader.js';
import { validateNode } from '../../src/compiler/validate/validate-node.js';
import { createMetrics } from '../../src/platform/app/metrics.js';
import { makeTempDir } from '../helpers/paths.js';
import { chunk, entity, fact, jsonl, qa, relationship, site, source } from './helpers.js';

const BUILD = '2026-02-03T04:05:06Z';
const tmp = makeTempDir('nodectl-rejected-');
afterAll(tmp.cleanup);

let run = 0;
/** Compiles through the real compiler into a directory, as `nodectl compile` does, and reads every file back. */
async function compileGraph(graph: MemoryGraph) {
  const dir = join(tmp.dir, `node-${++run}`);
  const result = await compileToDirectory(createMemoryGraphReader(graph), site(), dir, { buildTime: BUILD });
  const files = new Map(result.files.map((f) => [f.path, readFileSync(join(dir, f.path), 'utf8')]));
  return { dir, result, files, all: [...files.values()].join('\n') };
}

const mug = entity('Product', 'Blue Mug');
const acme = entity('Brand', 'Acme', { importance: 3 });
const broken = entity('Product', 'Broken Kettle', { confidence: 1.7 });
const badPage = 'https://shop.example/with space';
const orphanOfBadPage = entity('Product', 'Lost Teapot', { sourceId: source(badPage).id, sourceUrl: badPage });
const german = entity('Product', 'Tasse', { language: 'de' });
const misTagged = entity('Product', 'Cup', { language: 'en_US' });

const price = fact(mug, 'price', 12.5, { display: '12.50 EUR', importance: 5 });
const badPredicate = fact(mug, 'Bad Predicate', 'BAD-PREDICATE-VALUE');
const badDate = fact(mug, 'launch', 'launch', { validFrom: '2026-13-45' });
const aboutBroken = fact(broken, 'color', 'steel');
const misTaggedFact = fact(misTagged, 'color', 'white');

function graph(): MemoryGraph {
  return {
    entities: [mug, acme, broken, orphanOfBadPage, german, misTagged],
    facts: [price, badPredicate, badDate, aboutBroken, misTaggedFact],
    relationships: [relationship(mug, 'brand', acme), relationship(mug, 'related', broken)],
    chunks: [chunk('The Blue Mug and the Broken Kettle.', [mug, broken])],
    qa: [
      qa('What does the Blue Mug cost?', '12.50 EUR', [price]),
      qa('What is the Bad Predicate of the Blue Mug?', 'It is set.', [badPredicate, price]),
      qa('What colour is the Broken Kettle?', 'Steel.', [aboutBroken]),
    ],
    sources: [
      source(mug.sourceUrl!),
      source(acme.sourceUrl!),
      source(broken.sourceUrl!),
      source(badPage),
      source(german.sourceUrl!, { language: 'de' }),
    ],
  };
}

describe('second line of defence: a record that fails its schema is left out and reported, never the whole website', () => {
  it('bad predicate, bad language, bad url, bad date and a bad entity are left out, reported in order, and the node still validates (regression: one bad predicate failed the whole publish)', async () => {
    const { dir, result, files, all } = await compileGraph(graph());

    const report = await validateNode(dir);
    expect(report.errors).toEqual([]);
    expect(report.ok).toBe(true);

    expect(result.counts.rejected).toEqual({ sources: 1, entities: 2, facts: 3, relationships: 0, chunks: 0, qa: 0 });
    expect(result.rejected.map(({ file, id, path }) => ({ file, id, path }))).toEqual(
      [
        { file: 'entities.en.jsonl', id: broken.id, path: 'confidence' },
        { file: 'entities.en_US.jsonl', id: misTagged.id, path: 'language' },
        { file: 'facts.en.jsonl', id: badPredicate.id, path: 'predicate' },
        { file: 'facts.en.jsonl', id: badDate.id, path: 'valid_from' },
        { file: 'facts.en_US.jsonl', id: misTaggedFact.id, path: 'language' },
        { file: 'sources.jsonl', id: source(badPage).id, path: 'url' },
      ].sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : a.id < b.id ? -1 : 1)),
    );
    expect(result.rejected.find((r) => r.id === badPredicate.id)!.message).toBe('must be snake_case');
    expect(result.rejected.find((r) => r.id === misTagged.id)!.message).toBe('must be a BCP-47 language tag');
    expect(result.rejected.find((r) => r.id === source(badPage).id)!.message).toBe('must be an absolute http(s) URL');

    // The bad records are nowhere in the node, and the language that cannot name a file is not a node language.
    for (const id of [broken.id, misTagged.id, badPredicate.id, badDate.id, misTaggedFact.id, source(badPage).id])
      expect(all).not.toContain(id);
    expect(all).not.toContain('BAD-PREDICATE-VALUE');
    expect(all).not.toContain(badPage);
    expect(all).not.toContain('en_US');
    expect(JSON.parse(files.get('manifest.json')!).languages).toEqual(['de', 'en']);

    // The good records are all there.
    expect(
      jsonl(files.get('entities.en.jsonl'))
        .map((e) => e.id)
        .sort(),
    ).toEqual([mug.id, acme.id, orphanOfBadPage.id].sort());
    expect(jsonl(files.get('entities.de.jsonl')).map((e) => e.id)).toEqual([german.id]);
    expect(
      jsonl(files.get('facts.en.jsonl'))
        .map((f) => f.id)
        .sort(),
    ).toEqual([price.id, aboutBroken.id].sort());
    expect(jsonl(files.get('sources.jsonl'))).toHaveLength(4);

    // References to the rejected records are trimmed, not left dangling.
    const kettleFact = jsonl(files.get('facts.en.jsonl')).find((f) => f.id === aboutBroken.id)!;
    expect(kettleFact.subject_entity_id).toBeUndefined();
    expect(kettleFact.subject).toBe('Broken Kettle');
    expect(jsonl(files.get('relationships.en.jsonl')).map((r) => r.type)).toEqual(['brand']);
    expect(jsonl(files.get('chunks.en.jsonl'))[0]!.entity_ids).toEqual([mug.id]);
    const answers = new Map(jsonl(files.get('qa.en.jsonl')).map((q) => [q.question, q]));
    expect(answers.get('What is the Bad Predicate of the Blue Mug?')!.fact_ids).toEqual([price.id]);
    expect(answers.get('What colour is the Broken Kettle?')!.entity_ids).toBeUndefined();
    const teapot = jsonl(files.get('entities.en.jsonl')).find((e) => e.id === orphanOfBadPage.id)!;
    expect(teapot.source_id).toBeUndefined();
    expect(teapot.source_url).toBeUndefined();
  });

  it('compiles the same bad graph to the same bytes and the same report twice', async () => {
    const a = await compileGraph(graph());
    const b = await compileGraph(graph());
    expect(b.result.rejected).toEqual(a.result.rejected);
    for (const [path, text] of a.files) expect(b.files.get(path), path).toBe(text);
  });

  it('lists at most 1,000 rejected records (the first by file and id) while counting all of them', async () => {
    const many = Array.from({ length: 1203 }, (_, i) => fact(mug, `Bad ${i}`, i));
    const { result } = await compileGraph({ entities: [mug], facts: many, sources: [source(mug.sourceUrl!)] });
    expect(result.counts.rejected.facts).toBe(1203);
    expect(result.rejected).toHaveLength(1000);
    expect(result.rejected.map((r) => r.id)).toEqual(
      many
        .map((f) => f.id)
        .sort()
        .slice(0, 1000),
    );
  });

  it('the daemon metric nodectl_compile_records_rejected_total takes counts.rejected by kind (the name the publish route reports under)', async () => {
    const { result } = await compileGraph(graph());
    const metrics = createMetrics(() => undefined);
    for (const [kind, n] of Object.entries(result.counts.rejected))
      if (n > 0) metrics.compileRecordsRejected.inc({ kind }, n);
    const text = await metrics.registry.metrics();
    expect(text).toContain('# TYPE nodectl_compile_records_rejected_total counter');
    expect(text.split('\n').filter((l) => l.startsWith('nodectl_compile_records_rejected_total{'))).toEqual([
      'nodectl_compile_records_rejected_total{kind="sources"} 1',
      'nodectl_compile_records_rejected_total{kind="entities"} 2',
      'nodectl_compile_records_rejected_total{kind="facts"} 3',
    ]);
  });

  it('a uuid where a stable id is required still fails the whole compile (node.uuid_leak), on a record that is otherwise valid or not', async () => {
    const uuid = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
    await expect(
      compileGraph({ entities: [{ ...mug, id: `entity_${uuid}` }], sources: [source(mug.sourceUrl!)] }),
    ).rejects.toMatchObject({ code: 'node.uuid_leak' });
    await expect(
      compileGraph({ entities: [mug], facts: [{ ...price, id: uuid }], sources: [source(mug.sourceUrl!)] }),
    ).rejects.toMatchObject({ code: 'node.uuid_leak' });
    await expect(
      compileGraph({ entities: [mug], facts: [{ ...badPredicate, id: uuid }], sources: [source(mug.sourceUrl!)] }),
    ).rejects.toMatchObject({ code: 'node.uuid_leak' });
  });
});
