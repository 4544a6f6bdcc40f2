import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
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

  it('schema.jsonld expands with the jsonld library (offline context) to schema.org types and node-local ids', async () => {
    const doc = JSON.parse(nodes.get(name)!.get('schema.jsonld')!);
    const documentLoader = async (url: string) => {
      if (url.replace(/\/$/, '') === 'https://schema.org' || url.startsWith('https://schema.org/'))
        return {
          contextUrl: undefined,
          documentUrl: url,
          document: { '@context': { '@vocab': 'https://schema.org/' } },
        };
      throw new Error(`no network in tests: ${url}`);
    };
    const expanded = (await jsonld.expand(doc, { documentLoader: documentLoader as never })) as Array<
      Record<string, unknown>
    >;
    expect(expanded.length).toBe(doc['@graph'].length);
    expect(expanded.length).toBeGreaterThan(0);
    for (const node of expanded) {
      expect(String(node['@id'])).toMatch(/^(entity|fact)_[0-9a-f]+$/);
      for (const type of node['@type'] as string[]) expect(type).toMatch(/^https:\/\/schema\.org\/[A-Z][A-Za-z]+$/);
    }
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
