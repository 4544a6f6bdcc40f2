import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { computeItemChecksum } from '../../src/platform/contract/checksum.js';
import { checkGolden, listFixtures } from '../../src/compiler/golden.js';
import { loadFixture } from '../../src/compiler/fixture.js';
import { validateNode } from '../../src/compiler/validate/validate-node.js';
import { jsonl } from './helpers.js';

const ROOT = join(__dirname, '..', '..');
const FIXTURES = join(ROOT, 'fixtures');

describe('fixtures', () => {
  it('include a multilingual shop, a blog with editorial state, a local business and a docs site', () => {
    expect(listFixtures(FIXTURES)).toEqual(expect.arrayContaining(['shop', 'blog', 'local-business', 'docs']));
    expect(loadFixture(join(FIXTURES, 'shop')).items.map((i) => i.language)).toEqual(
      expect.arrayContaining(['en', 'de']),
    );
    expect(existsSync(join(FIXTURES, 'blog', 'editorial.jsonl'))).toBe(true);
  });

  it.each(listFixtures(FIXTURES))('%s: items carry the SDK checksum over {type,url,html,text,json}', (name) => {
    const lines = readFileSync(join(FIXTURES, name, 'items.jsonl'), 'utf8');
    expect(lines.endsWith('\n')).toBe(true);
    for (const item of jsonl(lines)) expect(item.checksum, item.id).toBe(computeItemChecksum(item as never));
  });

  it('a two-key site.json compiles with documented defaults', () => {
    const fixture = loadFixture(join(FIXTURES, 'minimal'));
    expect(Object.keys(JSON.parse(readFileSync(join(FIXTURES, 'minimal', 'site.json'), 'utf8')))).toEqual([
      'website_id',
      'domain',
    ]);
    expect(fixture.site).toMatchObject({
      brand: 'minimal.example',
      defaultLanguage: 'en',
      plan: 'free',
      verification: { method: null, state: 'pending' },
    });
    expect(fixture.buildTime).toBe('2026-01-01T00:00:00Z');
  });

  it('compile byte for byte to golden/', () => {
    const report = checkGolden(FIXTURES, join(ROOT, 'golden'));
    expect(report.differences).toEqual([]);
    expect(report.fixtures.map((f) => f.name)).toEqual(listFixtures(FIXTURES));
  });

  it.each(readdirSync(join(ROOT, 'golden')).sort())('golden/%s passes validateNode', async (name) => {
    const report = await validateNode(join(ROOT, 'golden', name));
    expect(report.errors).toEqual([]);
    expect(report.ok).toBe(true);
  });

  it('the blog hides one fact and pins another without serializing editorial state', () => {
    const dir = join(ROOT, 'golden', 'blog');
    const all = readdirSync(dir)
      .map((f) => readFileSync(join(dir, f), 'utf8'))
      .join('\n');
    expect(all).not.toContain('under 5 kilograms');
    expect(all).not.toContain('editor@fieldnotes.example');
    expect(all).not.toMatch(/"(pinned|editorial_status|reviewed_by|original_value|hidden|stale)"/);
    const job = jsonl(readFileSync(join(dir, 'facts.en.jsonl'), 'utf8')).find(
      (f) => f.subject === 'Jane Doe' && f.predicate === 'job_title',
    );
    expect(job?.value).toBe('Editor in chief');
  });
});
