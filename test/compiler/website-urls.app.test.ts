import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileNode } from '../../src/compiler/compile-node.js';
import { createMemoryGraphReader, type MemoryGraph } from '../../src/compiler/memory-reader.js';
import { createMemorySink } from '../../src/compiler/sink.js';
import { WebsiteUrls } from '../../src/compiler/website-urls.js';
import { validateNode } from '../../src/compiler/validate/validate-node.js';
import type { WebsiteInfo } from '../../src/control/records/website-info.js';
import { entity, fact, jsonl, qa, relationship, site, source, sourceId } from './helpers.js';

const BUILD = '2026-02-03T04:05:06Z';

async function compile(graph: MemoryGraph, siteInfo: WebsiteInfo = site()) {
  const sink = createMemorySink();
  const result = compileNode(createMemoryGraphReader(graph), siteInfo, { buildTime: BUILD }, sink);
  const dir = mkdtempSync(join(tmpdir(), 'nodectl-urls-'));
  for (const [path, text] of sink.files) writeFileSync(join(dir, path), text);
  const report = await validateNode(dir);
  return { files: sink.files, result, report, all: [...sink.files.values()].join('\n') };
}

/**
 * An item at `url` whose page declares `canonical`: the graph keys its
 * source, entity and facts by the canonical url, as ingestion does.
 */
function pageWithCanonical(url: string, canonical: string) {
  const page = entity('Product', 'Blue Mug', {
    canonicalKey: canonical,
    sourceId: sourceId(canonical),
    sourceUrl: canonical,
  });
  const brand = entity('Brand', 'Acme', { importance: 4 });
  const price = fact(page, 'price', 12.5, { display: '12.50 EUR', importance: 5 });
  return {
    page,
    graph: {
      entities: [page, brand],
      facts: [price],
      relationships: [relationship(page, 'brand', brand)],
      qa: [qa('What does the Blue Mug cost?', '12.50 EUR', [price])],
      sources: [source(url, { id: sourceId(canonical), canonicalUrl: canonical }), source(brand.sourceUrl!)],
    } satisfies MemoryGraph,
  };
}

describe('URL policy: only URLs on the website domain and its verified aliases appear in node files', () => {
  it('a canonical_url on another domain falls back to the item url in sources, sitemap-ai.xml, schema.jsonld, llms files, feeds and records (regression: foreign canonical_url was published)', async () => {
    const itemUrl = 'https://shop.example/blue-mug';
    const { page, graph } = pageWithCanonical(itemUrl, 'https://evil.example/landing');
    const { files, report, all, result } = await compile(graph);
    expect(report.errors).toEqual([]);
    expect(all).not.toContain('evil.example');
    expect(result.rejected).toEqual([]);

    const pageSource = jsonl(files.get('sources.jsonl')).find((s) => s.id === page.sourceId)!;
    expect(pageSource.url).toBe(itemUrl);
    expect(pageSource).not.toHaveProperty('canonical_url');
    expect(files.get('sitemap-ai.xml')).toContain(`<loc>${itemUrl}</loc>`);
    const jsonLdNode = JSON.parse(files.get('schema.jsonld')!)['@graph'].find((n: { '@id': string }) =>
      n['@id'].endsWith(`/#${page.id}`),
    );
    expect(jsonLdNode.url).toBe(itemUrl);
    expect(files.get('llms.txt')).toContain(`- [Blue Mug](${itemUrl}): Product`);
    expect(files.get('llms-full.txt')).toContain(`Source: ${itemUrl}`);
    for (const file of [
      'entities.en.jsonl',
      'facts.en.jsonl',
      'relationships.en.jsonl',
      'citations.jsonl',
      'priority-feed.jsonl',
    ]) {
      const mine = jsonl(files.get(file)).filter(
        (r) =>
          [r.id, r.record_id, r.from_entity_id, r.subject_entity_id].includes(page.id) ||
          r.record_id?.startsWith('fact_'),
      );
      expect(mine.length, file).toBeGreaterThan(0);
      for (const r of mine) expect(r.source_url, `${file} ${JSON.stringify(r)}`).toBe(itemUrl);
    }
  });

  it('keeps a canonical_url on a verified alias', async () => {
    const canonical = 'https://shop-alias.example/blue-mug';
    const { page, graph } = pageWithCanonical('https://shop.example/blue-mug', canonical);
    const { files, report } = await compile(graph, site({ aliases: ['shop-alias.example'] }));
    expect(report.errors).toEqual([]);
    expect(jsonl(files.get('sources.jsonl')).find((s) => s.id === page.sourceId)!.canonical_url).toBe(canonical);
    expect(files.get('sitemap-ai.xml')).toContain(`<loc>${canonical}</loc>`);
    expect(jsonl(files.get('entities.en.jsonl')).find((e) => e.id === page.id)!.source_url).toBe(canonical);
  });

  it('rejects a source whose own url is on another domain, and leaves out a record url that has nothing to fall back to', async () => {
    const stray = entity('Product', 'Stray', {
      sourceId: sourceId('https://evil.example/stray'),
      sourceUrl: 'https://evil.example/stray',
    });
    const { files, report, all, result } = await compile({
      entities: [stray],
      sources: [source('https://evil.example/stray')],
    });
    expect(report.errors).toEqual([]);
    expect(result.rejected).toEqual([
      {
        file: 'sources.jsonl',
        id: sourceId('https://evil.example/stray'),
        path: 'url',
        message: "host evil.example is not the website's domain shop.example",
      },
    ]);
    expect(all).not.toContain('evil.example');
    const record = jsonl(files.get('entities.en.jsonl'))[0]!;
    expect(record).not.toHaveProperty('source_url');
    expect(record).not.toHaveProperty('source_id');
  });

  it('judges hosts as a URL parser reads them, not by prefix', () => {
    const urls = new WebsiteUrls({ domain: 'shop.example', aliases: ['alias.example'] });
    const allowed = [
      'https://shop.example/',
      'http://shop.example',
      'https://SHOP.example/a',
      'https://shop.example./a',
      'https://shop.example:8443/a',
      'https://alias.example/?q=1',
      'https://shop.example\\path',
      'https://shop.example#top',
    ];
    const refused = [
      'https://shop.example@evil.example/',
      'https://shop.example.evil.example/',
      'https://evil.example/shop.example/',
      'https://evilshop.example/',
      'ftp://shop.example/',
      'https://shop.example/a\u0001b',
      'https://shop.example/a b',
      'shop.example/x',
      `https://shop.example/${'x'.repeat(4096)}`,
    ];
    for (const url of allowed) expect(urls.problem(url), url).toBeNull();
    for (const url of refused) expect(urls.problem(url), url).not.toBeNull();
    expect(urls.problem('https://evil.example/')).toBe(
      "host evil.example is not the website's domain shop.example or a verified alias (alias.example)",
    );
  });
});
