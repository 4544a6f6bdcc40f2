import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileToDirectory, loadFixture } from '../../../src/compiler/index.js';
import { buildGraphFromItems } from '../../../src/ingest/graph/build-from-items.js';
import { PROJECT_ROOT } from '../../helpers/paths.js';

export const SHOP = join(PROJECT_ROOT, 'fixtures', 'shop');
export const SHOP_GOLDEN = join(PROJECT_ROOT, 'golden', 'shop');
export const SHOP_WEBSITE = 'web_01JSHOPKAFFEEWERK00000000';
export const SHOP_DOMAIN = 'www.kaffeewerk.example';

/**
 * A copy of fixtures/shop under `dir` with a new build time and items changed by `mutate`
 * (each item is a parsed JSON line).
 */
export function shopVariant(
  dir: string,
  options: {
    buildTime?: string;
    mutate?: (items: Array<Record<string, unknown>>) => Array<Record<string, unknown>>;
  } = {},
): string {
  mkdirSync(dir, { recursive: true });
  cpSync(SHOP, dir, { recursive: true });
  const site = JSON.parse(readFileSync(join(dir, 'site.json'), 'utf8')) as Record<string, unknown>;
  if (options.buildTime) site.build_time = options.buildTime;
  writeFileSync(join(dir, 'site.json'), JSON.stringify(site, null, 2) + '\n');
  if (options.mutate) {
    const items = readFileSync(join(dir, 'items.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    writeFileSync(
      join(dir, 'items.jsonl'),
      options
        .mutate(items)
        .map((i) => JSON.stringify(i) + '\n')
        .join(''),
    );
  }
  return dir;
}

/** Compiles a fixture folder into `outDir` with the real compiler (no previous version). */
export async function compileFixtureTo(fixtureDir: string, outDir: string): Promise<string> {
  const fixture = loadFixture(fixtureDir);
  const graph = buildGraphFromItems(fixture.items, fixture.site, {
    receivedAt: fixture.buildTime,
    editorial: fixture.editorial,
  });
  try {
    await compileToDirectory(graph.reader, fixture.site, outDir, {
      ...fixture.presentation,
      buildTime: fixture.buildTime,
    });
  } finally {
    graph.close();
  }
  return outDir;
}

/** Changes the text of the last item (one item of thirteen). */
export function changeLastItem(items: Array<Record<string, unknown>>): Array<Record<string, unknown>> {
  const last = items[items.length - 1]!;
  for (const field of ['html', 'text'] as const)
    if (typeof last[field] === 'string')
      last[field] = (last[field] as string).replace(/Hamburg/g, 'Lübeck') + ' Updated.';
  return items;
}
