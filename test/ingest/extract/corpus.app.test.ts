import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { IngestItem } from '../../../src/platform/contract/ingest-item.js';
import { PROJECT_ROOT } from '../../helpers/paths.js';
import { CLEAN, problemsOf, runPipeline } from './pipeline.js';

const CORPUS = join(PROJECT_ROOT, 'test', 'data', 'readability-dev');

/** Every page of the in-repo corpus as a page item of one website (its own url on the site's domain). */
function corpusItems(): IngestItem[] {
  return readdirSync(CORPUS)
    .filter((name) => existsSync(join(CORPUS, name, 'source.html')))
    .sort()
    .map((name) => {
      const html = readFileSync(join(CORPUS, name, 'source.html'), 'utf8');
      return {
        type: 'page',
        id: name,
        url: `https://shop.example/corpus/${name}`,
        html,
        checksum: 'sha256:' + createHash('sha256').update(html).digest('hex'),
      };
    });
}

describe('the readability-dev corpus (test/data/readability-dev, real pages)', () => {
  it('every page extracts, and the website of all of them compiles and validates with no record left out', async () => {
    const items = corpusItems();
    expect(items.length).toBe(44);
    const outcome = await runPipeline(items);
    expect(problemsOf(outcome)).toEqual(CLEAN);
    expect(outcome.ingest.processed).toBe(items.length);
    expect(outcome.report.ok).toBe(true);
    // Each page is a source with its own entity; most have chunks of text.
    expect(outcome.compile.counts.sources).toBe(items.length);
    expect(outcome.compile.counts.chunks).toBeGreaterThan(items.length);
  });
});
