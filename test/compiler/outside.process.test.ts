import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jsonld from 'jsonld';
import { beforeAll, describe, expect, it } from 'vitest';
import { compileFixture, loadFixture } from '../../src/compiler/fixture.js';
import { LLMS_FULL_BUDGET, LLMS_TXT_BUDGET } from '../../src/compiler/llms.js';
import { createMemorySink } from '../../src/compiler/sink.js';
import { parseLlmsTxt } from '../../src/compiler/validate/llms-parse.js';

const ROOT = join(__dirname, '..', '..');
const FIXTURES = ['shop', 'blog', 'local-business', 'docs', 'minimal'];
const nodes = new Map<string, Map<string, string>>();
/** The terms of schema.org's context (https://schema.org) schema.jsonld uses, copied: no network in tests. */
const SCHEMA_ORG_CONTEXT = JSON.parse(readFileSync(join(ROOT, 'test', 'data', 'schema-org-context.jsonld'), 'utf8'));
const documentLoader = async (url: string) => {
  if (url.replace(/\/$/, '') === 'https://schema.org')
    return { contextUrl: undefined, documentUrl: url, document: SCHEMA_ORG_CONTEXT };
  throw new Error(`no network in tests: ${url}`);
};

beforeAll(() => {
  for (const name of FIXTURES) {
    const sink = createMemorySink();
    compileFixture(loadFixture(join(ROOT, 'fixtures', name)), sink);
    nodes.set(name, sink.files);
  }
});

describe.each(FIXTURES)('%s: checked by outside tools', (name) => {
  it('sitemap-ai.xml is valid against the sitemaps.org schema plus the ai: extension (xmllint)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'nodectl-sitemap-'));
    const file = join(dir, 'sitemap-ai.xml');
    writeFileSync(file, nodes.get(name)!.get('sitemap-ai.xml')!);
    const out = execFileSync(
      '/usr/bin/xmllint',
      ['--noout', '--schema', join(ROOT, 'schemas/xml/sitemap-ai.xsd'), file],
      { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    );
    expect(out).toBe('');
    expect(nodes.get(name)!.get('sitemap-ai.xml')).toMatch(
      /<url><loc>https?:\/\/[^<]+<\/loc><lastmod>[^<]+<\/lastmod><ai:importance>[1-5]<\/ai:importance><\/url>/,
    );
  });

  it('schema.jsonld expands with the jsonld library (offline context) to schema.org types and absolute ids on the website', async () => {
    const doc = JSON.parse(nodes.get(name)!.get('schema.jsonld')!);
    const origin = `https://${loadFixture(join(ROOT, 'fixtures', name)).site.domain}/`;
    const expanded = (await jsonld.expand(doc, { documentLoader: documentLoader as never })) as Array<
      Record<string, unknown>
    >;
    expect(expanded.length).toBe(doc['@graph'].length);
    expect(expanded.length).toBeGreaterThan(0);
    for (const node of expanded) {
      expect(String(node['@id']).startsWith(`${origin}#`), String(node['@id'])).toBe(true);
      expect(String(node['@id']).slice(origin.length + 1)).toMatch(/^(entity|fact)_[0-9a-f]+$/);
      for (const type of node['@type'] as string[]) expect(type).toMatch(/^https?:\/\/schema\.org\/[A-Z][A-Za-z]+$/);
    }
  });

  it('schema.jsonld converts to RDF in safe mode without a base IRI: one subject per @graph node (issue 37)', async () => {
    const doc = JSON.parse(nodes.get(name)!.get('schema.jsonld')!) as { '@graph': Array<{ '@id': string }> };
    // Safe mode throws where a relative @id or an unknown term would be dropped.
    const nquads = (await jsonld.toRDF(
      doc as never,
      {
        format: 'application/n-quads',
        safe: true,
        documentLoader,
      } as never,
    )) as unknown as string;
    const subjects = new Set(nquads.split('\n').flatMap((line) => line.match(/^<([^>]+)>/)?.[1] ?? []));
    expect([...subjects].sort()).toEqual(doc['@graph'].map((n) => n['@id']).sort());
  });

  it('schema.jsonld names the same ids read from latest/ and from versions/<id>/', async () => {
    const text = nodes.get(name)!.get('schema.jsonld')!;
    const readFrom = async (base: string) =>
      JSON.stringify(await jsonld.expand(JSON.parse(text), { base, documentLoader } as never));
    const site = 'https://nodes.example/0123456789abcdef';
    expect(await readFrom(`${site}/latest/schema.jsonld`)).toBe(
      await readFrom(`${site}/versions/01JAAAAAAAAAAAAAAAAAAAAAAA/schema.jsonld`),
    );
  });

  it('llms.txt parses into a title, a summary and links to node files, within budget', () => {
    const text = nodes.get(name)!.get('llms.txt')!;
    const parsed = parseLlmsTxt(text);
    expect(parsed.title).toBeTruthy();
    expect(parsed.summary).toBeTruthy();
    expect(parsed.links.map((l) => l.url)).toEqual(
      expect.arrayContaining(['manifest.json', 'ai.json', 'llms-full.txt', 'sources.jsonl']),
    );
    expect(text.length).toBeLessThanOrEqual(LLMS_TXT_BUDGET);
    const full = nodes.get(name)!.get('llms-full.txt')!;
    expect(full.length).toBeLessThanOrEqual(LLMS_FULL_BUDGET);
    expect(full).toContain('## What is left out');
  });
});
