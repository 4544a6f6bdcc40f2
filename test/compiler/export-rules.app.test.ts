import { describe, expect, it } from 'vitest';
import { compileNode } from '../../src/compiler/compile-node.js';
import { createMemoryGraphReader, type MemoryGraph } from '../../src/compiler/memory-reader.js';
import { createMemorySink } from '../../src/compiler/sink.js';
import { validateNode } from '../../src/compiler/validate/validate-node.js';
import { chunk, entity, fact, jsonl, qa, relationship, site, source } from './helpers.js';

const BUILD = '2026-02-03T04:05:06Z';

function compile(graph: MemoryGraph) {
  const sink = createMemorySink();
  const result = compileNode(createMemoryGraphReader(graph), site(), { buildTime: BUILD }, sink);
  const all = [...sink.files.values()].join('\n');
  return { files: sink.files, result, all };
}

const mug = entity('Product', 'Blue Mug');
const acme = entity('Brand', 'Acme', { importance: 3 });
const sources = [source(mug.sourceUrl!), source(acme.sourceUrl!)];

describe('export rule 1: a hidden fact is never emitted', () => {
  it('drops the hidden fact from facts, Q&A, llms, feeds and citations', () => {
    const secret = fact(mug, 'price', 99.99, {
      display: 'SECRET-PRICE-99',
      importance: 5,
      editorial: { hidden: true, pinned: false, editorialStatus: 'rejected', reviewedBy: 'ed', originalValue: 1 },
    });
    const visible = fact(mug, 'color', 'blue');
    const { files, all, result } = compile({
      entities: [mug],
      facts: [secret, visible],
      qa: [qa('What does the Blue Mug cost?', 'SECRET-PRICE-99', [secret])],
      sources,
    });
    expect(jsonl(files.get('facts.en.jsonl')).map((f) => f.id)).toEqual([visible.id]);
    expect(all).not.toContain('SECRET-PRICE-99');
    expect(all).not.toContain(secret.id);
    expect(jsonl(files.get('qa.en.jsonl'))).toEqual([]);
    expect(result.counts.withheld.hiddenFacts).toBe(1);
  });

  it('drops facts of a hidden entity and every reference to it', () => {
    const hiddenEntity = { ...acme, hidden: true };
    const brandFact = fact(hiddenEntity, 'name', 'Acme');
    const { files, all } = compile({
      entities: [mug, hiddenEntity],
      facts: [brandFact],
      relationships: [relationship(mug, 'brand', hiddenEntity)],
      chunks: [chunk('Acme makes mugs.', [mug, hiddenEntity])],
      sources,
    });
    expect(all).not.toContain(hiddenEntity.id);
    expect(jsonl(files.get('relationships.en.jsonl'))).toEqual([]);
    expect(jsonl(files.get('chunks.en.jsonl'))[0]!.entity_ids).toEqual([mug.id]);
  });
});

describe('export rule 2: only the surviving fact per (subject, predicate)', () => {
  it('emits the active candidate and drops superseded and merged ones', () => {
    const survivor = fact(mug, 'price', 12.5, { display: '12.50 EUR' });
    const superseded = { ...survivor, value: 15, display: 'OLD-15-EUR', status: 'superseded' as const };
    const merged = { ...survivor, value: 16, display: 'MERGED-16-EUR', status: 'merged' as const };
    const { files, all } = compile({ entities: [mug], facts: [superseded, survivor, merged], sources });
    const facts = jsonl(files.get('facts.en.jsonl'));
    expect(facts).toHaveLength(1);
    expect(facts[0]!.value).toBe(12.5);
    expect(all).not.toContain('OLD-15-EUR');
    expect(all).not.toContain('MERGED-16-EUR');
  });

  it('picks the pinned candidate when the store left two active ones', () => {
    const a = fact(mug, 'price', 12.5, { provenanceMethod: 'cms_field' });
    const b = { ...a, value: 11, editorial: { ...a.editorial, pinned: true } };
    const { files } = compile({ entities: [mug], facts: [a, b], sources });
    expect(jsonl(files.get('facts.en.jsonl')).map((f) => f.value)).toEqual([11]);
  });
});

describe('export rule 3: only resolved relationships', () => {
  it('suppresses dangling edges and edges to absent entities', () => {
    const resolved = relationship(mug, 'brand', acme);
    const dangling = relationship(mug, 'made_by', null);
    const ghost = entity('Organization', 'Ghost Corp');
    const toAbsent = relationship(mug, 'sold_by', ghost);
    const { files, all } = compile({ entities: [mug, acme], relationships: [resolved, dangling, toAbsent], sources });
    expect(jsonl(files.get('relationships.en.jsonl')).map((r) => r.id)).toEqual([resolved.id]);
    expect(all).not.toContain(ghost.id);
    expect(all).not.toContain('dangling');
  });
});

describe('export rule 4: stale Q&A is excluded and the flag never serialized', () => {
  it('drops stale Q&A and writes no stale key', () => {
    const price = fact(mug, 'price', 12.5);
    const fresh = qa('What does the Blue Mug cost?', '12.50 EUR', [price]);
    const stale = qa('Is the Blue Mug on sale?', 'STALE-ANSWER', [price], { stale: true });
    const { files, all } = compile({ entities: [mug], facts: [price], qa: [fresh, stale], sources });
    expect(jsonl(files.get('qa.en.jsonl')).map((q) => q.id)).toEqual([fresh.id]);
    expect(all).not.toContain('STALE-ANSWER');
    expect(all).not.toMatch(/"stale"/);
  });
});

describe('export rule 5: internal editorial fields are never serialized', () => {
  it('writes no editorialStatus, pinned, reviewedBy, originalValue, hidden or status anywhere', () => {
    const reviewed = fact(mug, 'price', 12.5, {
      editorial: {
        hidden: false,
        pinned: true,
        editorialStatus: 'approved',
        reviewedBy: 'REVIEWER-NAME',
        originalValue: 'ORIGINAL-VALUE',
      },
    });
    const { all } = compile({
      entities: [mug, acme],
      facts: [reviewed],
      relationships: [relationship(mug, 'brand', acme)],
      sources,
    });
    for (const field of [
      'editorialStatus',
      'editorial_status',
      'pinned',
      'reviewedBy',
      'reviewed_by',
      'originalValue',
      'original_value',
      'hidden',
      'editorial',
      'resolutionStatus',
    ])
      expect(all).not.toContain(`"${field}"`);
    expect(all).not.toContain('REVIEWER-NAME');
    expect(all).not.toContain('ORIGINAL-VALUE');
  });
});

describe('cross-file references', () => {
  it('leaves no dangling id: Q&A, chunks and facts only point at exported records, and the node validates', async () => {
    const ghost = entity('Person', 'Nobody');
    const orphan = fact(mug, 'color', 'blue', { subjectEntityId: ghost.id, sourceId: 'src_000000000000000000000000' });
    const q = qa('What colour?', 'Blue.', [orphan], {
      factIds: [orphan.id, 'fact_ffffffffffffffffffffffff'],
      entityIds: [ghost.id],
    });
    const { files } = compile({
      entities: [mug],
      facts: [orphan],
      chunks: [chunk('text', [ghost, mug])],
      qa: [q],
      sources,
    });
    const f = jsonl(files.get('facts.en.jsonl'))[0]!;
    expect(f.subject_entity_id).toBeUndefined();
    expect(f.source_id).toBeUndefined();
    expect(jsonl(files.get('qa.en.jsonl'))[0]!.fact_ids).toEqual([orphan.id]);
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'nodectl-refs-'));
    for (const [path, text] of files) writeFileSync(join(dir, path), text);
    const report = await validateNode(dir);
    expect(report.errors).toEqual([]);
    expect(report.ok).toBe(true);
  });
});

describe('invariants before write', () => {
  it('refuses a uuid where a stable id is required (node.uuid_leak)', () => {
    const leaky = { ...mug, id: 'entity_3f2504e0-4f89-11d3-9a0c-0305e82c3301' };
    expect(() => compile({ entities: [leaky], sources })).toThrow(expect.objectContaining({ code: 'node.uuid_leak' }));
  });

  it('leaves out a graph record that fails its schema and reports it, instead of failing the node (rejected-records.test.ts has the rest)', () => {
    const { files, result } = compile({ entities: [{ ...mug, confidence: 1.7 }], sources });
    expect(jsonl(files.get('entities.en.jsonl'))).toEqual([]);
    expect(result.rejected).toEqual([
      { file: 'entities.en.jsonl', id: mug.id, path: 'confidence', message: expect.stringContaining('1') },
    ]);
  });

  it('still refuses a document it builds that fails its schema (publish.validation_failed)', () => {
    expect(() =>
      compileNode(
        createMemoryGraphReader({ entities: [mug], sources }),
        site({ websiteId: '' }),
        { buildTime: BUILD },
        createMemorySink(),
      ),
    ).toThrow(expect.objectContaining({ code: 'publish.validation_failed' }));
  });
});

describe('export rule 1 through entity attributes', () => {
  it('does not repeat a hidden fact value in its entity attributes (regression: blog description leaked via attributes)', () => {
    const post = entity('BlogPosting', 'Trail Notes', {
      attributes: { description: 'WITHDRAWN-CLAIM', itemType: 'post', jobTitle: 'x' },
    });
    const hidden = fact(post, 'description', 'WITHDRAWN-CLAIM', {
      editorial: { hidden: true, pinned: false, editorialStatus: null, reviewedBy: null, originalValue: null },
    });
    const { files, all } = compile({ entities: [post], facts: [hidden], sources: [source(post.sourceUrl!)] });
    expect(all).not.toContain('WITHDRAWN-CLAIM');
    expect(jsonl(files.get('entities.en.jsonl'))[0]!.attributes).toEqual({ itemType: 'post', jobTitle: 'x' });
  });
});
