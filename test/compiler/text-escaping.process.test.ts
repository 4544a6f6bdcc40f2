import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileNode } from '../../src/compiler/compile-node.js';
import { markdownDestination, markdownLinkText, markdownText } from '../../src/compiler/markdown.js';
import { createMemoryGraphReader, type MemoryGraph } from '../../src/compiler/memory-reader.js';
import { createMemorySink } from '../../src/compiler/sink.js';
import { validateNode } from '../../src/compiler/validate/validate-node.js';
import { parseLlmsTxt } from '../../src/compiler/validate/llms-parse.js';
import { PROJECT_ROOT } from '../helpers/paths.js';
import { entity, fact, site, source, sourceId } from './helpers.js';

const BUILD = '2026-02-03T04:05:06Z';
const BIDI = '\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c';
const HOSTILE_URL = `https://shop.example/p?q="><script>alert(1)</script>`;
const HOSTILE_URL_ENCODED = 'https://shop.example/p?q=%22%3E%3Cscript%3Ealert%281%29%3C/script%3E';
const HOSTILE_NAME = `Evil "><script>alert(1)</script> [x] *bold* _u_ \`code\` & \u202eLOOC\u202c \\ end`;

async function compile(graph: MemoryGraph, brand = 'Example Shop') {
  const sink = createMemorySink();
  compileNode(
    createMemoryGraphReader(graph),
    site({ brand }),
    { buildTime: BUILD, description: `Cups <b>and</b> mugs${BIDI} & more` },
    sink,
  );
  const dir = mkdtempSync(join(tmpdir(), 'nodectl-escaping-'));
  for (const [path, text] of sink.files) writeFileSync(join(dir, path), text);
  return { files: sink.files, dir, report: await validateNode(dir) };
}

function hostileGraph(): MemoryGraph {
  const evil = entity('Product', HOSTILE_NAME, { sourceId: sourceId(HOSTILE_URL), sourceUrl: HOSTILE_URL });
  return {
    entities: [evil],
    facts: [fact(evil, 'tagline', `<b>Bold</b> *claim*${BIDI}`, { importance: 5 })],
    sources: [source(HOSTILE_URL)],
  };
}

describe('llms.txt and llms-full.txt escaping (regression: a url with "><script> went raw into llms.txt, bidi controls into its text)', () => {
  it('writes the exact escaped key-page link, title and summary into llms.txt, and the parser reads them back', async () => {
    const { files, report } = await compile(hostileGraph(), `Shop${BIDI} <Brand>`);
    expect(report.errors).toEqual([]);
    const llms = files.get('llms.txt')!;
    expect(llms.split('\n').slice(0, 3)).toEqual(['# Shop \\<Brand\\>', '', '> Cups \\<b\\>and\\</b\\> mugs \\& more']);
    expect(llms).toContain(
      `- [Evil "\\>\\<script\\>alert(1)\\</script\\> x \\*bold\\* \\_u\\_ \\\`code\\\` \\& LOOC \\\\ end](${HOSTILE_URL_ENCODED}): Product\n`,
    );
    for (const char of BIDI) expect(llms).not.toContain(char);
    expect(llms).not.toContain('<script>');

    const parsed = parseLlmsTxt(llms);
    expect(parsed.title).toBe('Shop <Brand>');
    expect(parsed.summary).toBe('Cups <b>and</b> mugs & more');
    expect(parsed.links).toContainEqual({
      text: 'Evil "><script>alert(1)</script> x *bold* _u_ `code` & LOOC \\ end',
      url: HOSTILE_URL_ENCODED,
      note: 'Product',
    });
    expect(new URL(parsed.links.find((l) => l.note === 'Product')!.url).searchParams.get('q')).toBe(
      '"><script>alert(1)</script>',
    );
  });

  it('writes the exact escaped entity block into llms-full.txt', async () => {
    const { files } = await compile(hostileGraph());
    const full = files.get('llms-full.txt')!;
    expect(full).toContain(
      [
        '## Evil "\\>\\<script\\>alert(1)\\</script\\> \\[x\\] \\*bold\\* \\_u\\_ \\`code\\` \\& LOOC \\\\ end',
        '',
        `Product · en · importance 5 · ${entity('Product', HOSTILE_NAME).id}`,
        `Source: ${HOSTILE_URL_ENCODED}`,
        '',
        '- tagline: \\<b\\>Bold\\</b\\> \\*claim\\*',
        '',
      ].join('\n'),
    );
    expect(full.split('\n')[2]).toBe('> Cups \\<b\\>and\\</b\\> mugs \\& more');
    for (const char of BIDI) expect(full).not.toContain(char);
  });

  it('keeps the JSON files exact: schema.jsonld and the records carry the text as data, escaped only by JSON', async () => {
    const { files } = await compile(hostileGraph());
    const jsonLd = JSON.parse(files.get('schema.jsonld')!);
    expect(jsonLd['@graph'][0]).toMatchObject({ name: HOSTILE_NAME, url: HOSTILE_URL });
    expect(JSON.parse(files.get('entities.en.jsonl')!.split('\n')[0]!)).toMatchObject({
      name: HOSTILE_NAME,
      source_url: HOSTILE_URL,
    });
  });
});

describe('markdown escaping rules', () => {
  it('percent-encodes what markdown or HTML could misread in a link destination, and nothing else', () => {
    expect(markdownDestination('https://shop.example/a b<c>"d\'e(f)g\\h`i[j]k{l}m|n^o')).toBe(
      'https://shop.example/a%20b%3Cc%3E%22d%27e%28f%29g%5Ch%60i%5Bj%5Dk%7Bl%7Dm%7Cn%5Eo',
    );
    expect(markdownDestination('https://shop.example/caf\u00e9/\u{1f600}?x=1&y=%20&z=%zz#frag')).toBe(
      'https://shop.example/caf%C3%A9/%F0%9F%98%80?x=1&y=%20&z=%25zz#frag',
    );
    expect(markdownDestination('https://shop.example/?a=1&amp;b=2&#60;x')).toBe(
      'https://shop.example/?a=1&amp%3Bb=2&#60%3Bx',
    );
    expect(markdownDestination('https://shop.example/\ud800x')).toBe('https://shop.example/%EF%BF%BDx');
    expect(markdownDestination('https://shop.example/a_b*c~d!e$f+g,h;i=j:k@l')).toBe(
      'https://shop.example/a_b*c~d!e$f+g,h;i=j:k@l',
    );
  });

  it('escapes markdown-significant characters in text, drops brackets from link text, strips controls and bidi controls', () => {
    expect(markdownText('a\\b`c*d_e[f]g<h>i&j')).toBe('a\\\\b\\`c\\*d\\_e\\[f\\]g\\<h\\>i\\&j');
    expect(markdownLinkText('[Sale] Blue Mug')).toBe('Sale Blue Mug');
    expect(markdownText(`one\n\ttwo\u0000\u0007\u0085 three${BIDI}\u2028four`)).toBe('one two three four');
    expect(markdownText('Hamburg (DE), 3.0 | 100% #1 - ok!')).toBe('Hamburg (DE), 3.0 | 100% #1 - ok!');
  });
});

describe('sitemap-ai.xml escaping', () => {
  it('XML-escapes & < > " \' in loc, stays valid against the schema, and an XML parser reads the url back', () => {
    const url = `https://shop.example/a?b=1&c=<2>"'`;
    const sink = createMemorySink();
    compileNode(
      createMemoryGraphReader({
        entities: [entity('Product', 'Mug', { sourceId: sourceId(url), sourceUrl: url })],
        sources: [source(url)],
      }),
      site(),
      { buildTime: BUILD },
      sink,
    );
    const xml = sink.files.get('sitemap-ai.xml')!;
    expect(xml).toContain('<loc>https://shop.example/a?b=1&amp;c=&lt;2&gt;&quot;&apos;</loc>');
    const dir = mkdtempSync(join(tmpdir(), 'nodectl-sitemap-escape-'));
    const file = join(dir, 'sitemap-ai.xml');
    writeFileSync(file, xml);
    expect(
      execFileSync(
        '/usr/bin/xmllint',
        ['--noout', '--schema', join(PROJECT_ROOT, 'schemas/xml/sitemap-ai.xsd'), file],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
      ),
    ).toBe('');
    expect(
      execFileSync('/usr/bin/xmllint', ['--xpath', "string(//*[local-name()='loc'])", file], {
        encoding: 'utf8',
      }).replace(/\n$/, ''),
    ).toBe(url);
  });
});
