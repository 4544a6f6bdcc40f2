import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/paths.js';

describe('README CLI reference', () => {
  it('matches the commands the binary declares (regenerate: npm run docs:cli)', async () => {
    const { renderCliReference } = await import(join(PROJECT_ROOT, 'scripts', 'cli-reference-render.mjs'));
    const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
    const begin = readme.indexOf('<!-- cli-reference:begin');
    const end = readme.indexOf('<!-- cli-reference:end -->');
    expect(begin).toBeGreaterThan(0);
    const section = readme.slice(readme.indexOf('\n', begin) + 1, end);
    expect(section).toBe(await renderCliReference());
  });
});
