import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { IngestItem } from '../../../src/platform/contract/ingest-item.js';
import { buildGraphFromItems } from '../../../src/ingest/graph/build-from-items.js';
import type { WebsiteInfo } from '../../../src/control/records/website-info.js';
import { CHECKSUM, readPage } from './helpers.js';
import { CLEAN, problemsOf, runPipeline } from './pipeline.js';

/**
 * Issue 18, entity identity across items (docs/contract.md#entity-identity): the extractor keys
 * by url and type family, the graph store makes one entity of every contribution with that key
 * and keeps the most specific type.
 */

const HALLS: WebsiteInfo = {
  websiteId: 'web_01JEXTRACTHALLS0000000000',
  domain: 'halls.example',
  brand: 'Kettle Yard Hall',
  defaultLanguage: 'en',
  plan: 'pro',
  verification: { method: 'dns_txt', state: 'verified' },
  aliases: [],
};

function page(
  type: IngestItem['type'],
  id: string,
  url: string,
  file: string,
  extra: Partial<IngestItem> = {},
): IngestItem {
  return { type, id, url, html: readPage(file), checksum: CHECKSUM, ...extra } as IngestItem;
}

const POST = page('post', 'hurdy-gurdy', 'https://halls.example/notes/hurdy-gurdy', 'author-post.html', {
  json: { author: { name: 'Cleo Marsh', url: 'https://halls.example/people/cleo' } },
});
const PROFILE = page('profile', 'cleo', 'https://halls.example/people/cleo', 'author-profile.html', {
  title: 'Cleo Marsh',
});
const PROGRAMME = page('page', 'programme', 'https://halls.example/programme', 'season-programme.html');
const FESTIVAL = page('event', 'festival', 'https://halls.example/festival', 'festival.html');

/** The entity rows named `name` after the batches are ingested one after the other into one graph file. */
function entityRows(batches: IngestItem[][], name: string): Array<{ type: string; source_url: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'nodectl-identity-'));
  try {
    let rows: Array<{ type: string; source_url: string }> = [];
    for (const items of batches) {
      const graph = buildGraphFromItems(items, HALLS, {
        receivedAt: '2026-09-02T08:00:00Z',
        file: join(dir, 'graph.sqlite'),
      });
      rows = graph.db.prepare('SELECT type, source_url FROM entities WHERE name = ? ORDER BY id').all(name) as Array<{
        type: string;
        source_url: string;
      }>;
      graph.close();
    }
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('identity across items (extractor, graph store)', () => {
  it("bug: a post's author and the author's own profile page were two Person entities with one url; now one, described by the profile page (equal statements: the entity's own page wins)", () => {
    expect(entityRows([[POST, PROFILE]], 'Cleo Marsh')).toEqual([
      { type: 'Person', source_url: 'https://halls.example/people/cleo' },
    ]);
  });

  it("a Festival on the programme page and the Event of the festival's own page are one entity of type Festival, whichever is ingested first", () => {
    const expected = [{ type: 'Festival', source_url: 'https://halls.example/festival' }];
    expect(entityRows([[PROGRAMME, FESTIVAL]], 'Fen Folk Festival')).toEqual(expected);
    expect(entityRows([[FESTIVAL], [PROGRAMME]], 'Fen Folk Festival')).toEqual(expected);
    expect(entityRows([[PROGRAMME], [FESTIVAL]], 'Fen Folk Festival')).toEqual(expected);
  });

  it('the website of all four pages compiles and validates with no record left out', async () => {
    expect(problemsOf(await runPipeline([POST, PROFILE, PROGRAMME, FESTIVAL], { site: HALLS }))).toEqual(CLEAN);
  });
});

describe('a page and its translation, each linking the other (hreflang)', () => {
  it('the has_translation relationships resolve once both pages are in the graph', () => {
    const links =
      '<link rel="alternate" hreflang="en" href="https://halls.example/en/concerts"><link rel="alternate" hreflang="de" href="https://halls.example/de/konzerte"><link rel="alternate" hreflang="x-default" href="https://halls.example/concerts">';
    const item = (id: string, url: string, lang: string, title: string): IngestItem =>
      ({
        type: 'page',
        id,
        url,
        html: `<html lang="${lang}"><head><title>${title}</title>${links}</head><body><p>${title}.</p></body></html>`,
        checksum: CHECKSUM,
      }) as IngestItem;
    const dir = mkdtempSync(join(tmpdir(), 'nodectl-translation-'));
    try {
      const graph = buildGraphFromItems(
        [
          item('en', 'https://halls.example/en/concerts', 'en', 'Concerts this season'),
          item('de', 'https://halls.example/de/konzerte', 'de', 'Konzerte dieser Saison'),
        ],
        HALLS,
        { receivedAt: '2026-09-02T08:00:00Z', file: join(dir, 'graph.sqlite') },
      );
      const rows = graph.db
        .prepare(
          `SELECT f.name AS from_name, t.name AS to_name, r.resolution_status FROM relationships r JOIN entities f ON f.id = r.from_entity_id LEFT JOIN entities t ON t.id = r.to_entity_id
        WHERE r.type = 'has_translation' ORDER BY f.name`,
        )
        .all();
      graph.close();
      expect(rows).toEqual([
        { from_name: 'Concerts this season', to_name: 'Konzerte dieser Saison', resolution_status: 'resolved' },
        { from_name: 'Konzerte dieser Saison', to_name: 'Concerts this season', resolution_status: 'resolved' },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
