import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileNode } from '../../src/compiler/compile-node.js';
import { compileFixture, loadFixture } from '../../src/compiler/fixture.js';
import { createMemoryGraphReader, type MemoryGraph } from '../../src/compiler/memory-reader.js';
import { nodeVersionLabel, ulidTime } from '../../src/compiler/node-version.js';
import { readPreviousNode } from '../../src/compiler/previous.js';
import { createMemorySink } from '../../src/compiler/sink.js';
import type { CompileOptions } from '../../src/compiler/types.js';
import { chunk, entity, fact, jsonl, qa, relationship, site, source } from './helpers.js';

const mug = entity('Product', 'Blue Mug', { attributes: { z: 1, a: { y: 2, b: 3 } } });
const acme = entity('Brand', 'Acme', { importance: 3 });
const price = fact(mug, 'price', 12.5, { display: '12.50 EUR', currency: 'EUR' });
const graph: MemoryGraph = {
  entities: [mug, acme],
  facts: [price, fact(mug, 'color', 'blue')],
  relationships: [relationship(mug, 'brand', acme)],
  chunks: [chunk('A blue mug.', [mug])],
  qa: [qa('What does it cost?', '12.50 EUR', [price])],
  sources: [source(mug.sourceUrl!), source(acme.sourceUrl!)],
};

function compile(g: MemoryGraph, options: CompileOptions) {
  const sink = createMemorySink();
  const result = compileNode(createMemoryGraphReader(g), site({ plan: 'business' }), options, sink);
  return { files: sink.files, result };
}

describe('determinism (export rule 6)', () => {
  it('gives byte-identical files for the same graph and build time, whatever the row order', () => {
    const a = compile(graph, { buildTime: '2026-02-03T04:05:06Z' });
    const reversed: MemoryGraph = Object.fromEntries(
      Object.entries(graph).map(([k, rows]) => [k, [...rows].reverse()]),
    );
    const b = compile(reversed, { buildTime: '2026-02-03T04:05:06Z' });
    expect([...b.files.keys()].sort()).toEqual([...a.files.keys()].sort());
    for (const [path, text] of a.files) expect(b.files.get(path), path).toBe(text);
    expect(a.result.nodeVersion).toBe(b.result.nodeVersion);
  });

  it('compiles a fixture twice through the real pipeline to the same bytes', () => {
    const fixture = loadFixture(join(__dirname, '../../fixtures/shop'));
    const a = createMemorySink();
    const b = createMemorySink();
    compileFixture(fixture, a);
    compileFixture(fixture, b);
    expect(a.files.size).toBeGreaterThan(15);
    for (const [path, text] of a.files) expect(b.files.get(path), path).toBe(text);
  });

  it('derives node_version from the build time and the content', () => {
    const a = compile(graph, { buildTime: '2026-02-03T04:05:06Z' });
    expect(a.result.nodeVersion).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(ulidTime(a.result.nodeVersion)).toBe(Date.parse('2026-02-03T04:05:06Z'));
    const changed = compile(
      { ...graph, facts: [fact(mug, 'price', 13, { display: '13.00 EUR' })] },
      { buildTime: '2026-02-03T04:05:06Z' },
    );
    expect(changed.result.nodeVersion.slice(0, 10)).toBe(a.result.nodeVersion.slice(0, 10));
    expect(changed.result.nodeVersion.slice(10)).not.toBe(a.result.nodeVersion.slice(10));
    const later = compile(graph, { buildTime: '2026-02-03T04:05:07Z' });
    expect(later.result.nodeVersion > a.result.nodeVersion).toBe(true);
    expect(JSON.parse(a.files.get('manifest.json')!).generated_at).toBe('2026-02-03T04:05:06Z');
  });

  it('labels versions YYYY-MM-DD.N by the day sequence', () => {
    expect(nodeVersionLabel('2026-02-03T04:05:06Z', null)).toBe('2026-02-03.1');
    expect(nodeVersionLabel('2026-02-03T09:00:00Z', '2026-02-03.1')).toBe('2026-02-03.2');
    expect(nodeVersionLabel('2026-02-04T00:00:00Z', '2026-02-03.7')).toBe('2026-02-04.1');
  });

  it('writes manifest.json last and sorts its files and capabilities', () => {
    const order: string[] = [];
    const sink = createMemorySink();
    compileNode(
      createMemoryGraphReader(graph),
      site({ plan: 'business' }),
      { buildTime: '2026-02-03T04:05:06Z' },
      {
        open(path) {
          order.push(path);
          return sink.open(path);
        },
      },
    );
    expect(order.at(-1)).toBe('manifest.json');
    const manifest = JSON.parse(sink.files.get('manifest.json')!);
    const paths = manifest.files.map((f: { path: string }) => f.path);
    expect(paths).toEqual([...paths].sort());
    expect(manifest.capabilities).toEqual(['cap.advanced', 'cap.core', 'cap.embeddings', 'cap.mcp', 'cap.webhooks']);
    expect(
      JSON.parse(
        sink.files
          .get('entities.en.jsonl')!
          .split('\n')
          .find((l) => l.includes('Blue Mug'))!,
      ).attributes,
    ).toEqual({ a: { b: 3, y: 2 }, z: 1 });
    expect(sink.files.get('entities.en.jsonl')).toContain('"attributes":{"a":{"b":3,"y":2},"z":1}');
  });
});

describe('versions against a previous node', () => {
  it('lists record-level changes, the history and the next label', async () => {
    const first = compile(graph, { buildTime: '2026-02-03T04:05:06Z' });
    const dir = mkdtempSync(join(tmpdir(), 'nodectl-prev-'));
    for (const [path, text] of first.files) writeFileSync(join(dir, path), text);
    const previous = await readPreviousNode(dir);
    expect(previous?.nodeVersion).toBe(first.result.nodeVersion);
    const color = fact(mug, 'color', 'blue');
    const next: MemoryGraph = { ...graph, facts: [fact(mug, 'price', 13, { display: '13.00 EUR' })], qa: [] };
    const second = compile(next, { buildTime: '2026-02-03T08:00:00Z', previous: previous! });
    const changes = jsonl(second.files.get('changes.jsonl'));
    const byId = (id: string) => changes.find((c) => c.record_id === id);
    expect(byId(price.id)).toMatchObject({
      change: 'changed',
      record_kind: 'fact',
      file: 'facts.en.jsonl',
      since_version: first.result.nodeVersion,
    });
    expect(byId(price.id)!.content_hash).not.toBe(byId(price.id)!.previous_content_hash);
    expect(byId(color.id)).toMatchObject({ change: 'removed', record_kind: 'fact' });
    expect(byId(mug.id)).toBeUndefined();
    expect(changes.find((c) => c.record_kind === 'qa')).toMatchObject({ change: 'removed' });
    expect(changes.find((c) => c.record_kind === 'file' && c.record_id === 'facts.en.jsonl')).toMatchObject({
      change: 'changed',
    });
    const versions = JSON.parse(second.files.get('versions.json')!);
    expect(versions.current).toEqual({
      node_version: second.result.nodeVersion,
      node_version_label: '2026-02-03.2',
      generated_at: '2026-02-03T08:00:00Z',
    });
    expect(versions.previous).toBe(first.result.nodeVersion);
    expect(versions.history[0].node_version).toBe(first.result.nodeVersion);
    expect(
      readFileSync(join(dir, 'changes.jsonl'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .every((l) => JSON.parse(l).change === 'added'),
    ).toBe(true);
  });
});
