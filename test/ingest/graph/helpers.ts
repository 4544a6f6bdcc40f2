import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  CandidateEntity,
  CandidateFact,
  EntityRef,
  ItemContribution,
} from '../../../src/ingest/extract/contribution.js';
import { GRAPH_DB_OPTIONS } from '../../../src/ingest/graph/schema.js';
import type { WebsiteInfo } from '../../../src/control/records/website-info.js';
import { openDatabase, type Db } from '../../../src/platform/storage/sqlite.js';

export const site: WebsiteInfo = {
  websiteId: 'web_TEST',
  domain: 'shop.example',
  brand: 'Acme',
  defaultLanguage: 'en',
  plan: 'free',
  verification: { method: 'dns_txt', state: 'verified' },
  aliases: [],
};

export const CHECKSUM = 'sha256:' + 'a'.repeat(64);

export interface TempGraph {
  db: Db;
  file: string;
  dir: string;
  cleanup(): void;
}

export function tempGraph(): TempGraph {
  const dir = mkdtempSync(join(tmpdir(), 'nodectl-graph-'));
  const file = join(dir, 'graphs', 'web_TEST.sqlite');
  const db = openDatabase(file, GRAPH_DB_OPTIONS);
  return { db, file, dir, cleanup: () => (db.open && db.close(), rmSync(dir, { recursive: true, force: true })) };
}

export const ref = (type: string, canonicalKey: string): EntityRef => ({ type, canonicalKey });

export function entity(r: EntityRef, name: string, extra: Partial<CandidateEntity> = {}): CandidateEntity {
  return {
    ...r,
    name,
    language: 'en',
    confidence: 0.9,
    provenanceMethod: 'cms_field',
    importance: 3,
    attributes: {},
    ...extra,
  };
}

export function fact(
  subject: EntityRef,
  predicate: string,
  value: CandidateFact['value'],
  extra: Partial<CandidateFact> = {},
): CandidateFact {
  return {
    subject,
    subjectName: subject.canonicalKey,
    predicate,
    value,
    language: 'en',
    confidence: 0.9,
    provenanceMethod: 'cms_field',
    importance: 3,
    freshness: 'stable',
    ...extra,
  };
}

/** A hand-made contribution of item `key` whose primary entity is a WebPage at `url`. */
export function contribution(
  key: string,
  url: string,
  parts: Partial<ItemContribution> = {},
  lastSeenAt = '2026-01-01T00:00:00Z',
): ItemContribution {
  const primary = ref('WebPage', url);
  return {
    itemKey: key,
    primaryEntity: primary,
    language: 'en',
    source: {
      url,
      canonicalUrl: null,
      title: key,
      contentType: 'text/html',
      checksum: CHECKSUM,
      language: 'en',
      lastSeenAt,
    },
    entities: [entity(primary, `Page ${key}`)],
    facts: [],
    relationships: [],
    chunks: [],
    qa: [],
    warnings: [],
    ...parts,
  };
}

export function count(db: Db, table: string, where = '1 = 1', ...args: unknown[]): number {
  return (db.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where}`).get(...args) as { n: number }).n;
}

/**
 * A table's columns but `seq` (chunks, entities, fact candidates), which says in which transaction a row was
 * written (graph migrations 0015 to 0017), not what it holds.
 */
export function contentColumns(db: Db, table: string): string {
  const columns = db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all(table) as string[];
  return columns.filter((c) => c !== 'seq').join(', ');
}

/**
 * A product page naming a shared brand and author (contributors several items share) and an
 * FAQ (Q&A citing facts). With `lang` it is in that language, under `/<lang>/`.
 */
export function bikePage(i: number, lang?: string) {
  const name = `${lang === 'de' ? 'Fahrrad' : 'Bike'} ${i}`;
  const ld = {
    '@context': 'https://schema.org',
    '@type': 'Product',
    name,
    sku: `SKU-${i}`,
    brand: { '@type': 'Brand', name: 'Velo' },
    review: { '@type': 'Review', author: { '@type': 'Person', name: `Author ${i % 3}` } },
    offers: { '@type': 'Offer', price: `${100 + i}.00`, priceCurrency: 'EUR' },
  };
  const html = `<html lang="${lang ?? 'en'}"><head><title>${name}</title><script type="application/ld+json">${JSON.stringify(ld)}</script></head>
    <body><main><h1>${name}</h1><h2>Details</h2><p>${name} rides far and light, with a steel frame and a leather saddle.</p>
    <h2>FAQ</h2><p>Does ${name} fold? No, it does not fold.</p></main></body></html>`;
  return {
    type: 'product',
    id: `p${i}`,
    url: lang === undefined ? `https://example.com/p${i}` : `https://example.com/${lang}/p${i}`,
    html,
    checksum: 'sha256:' + String(i).padStart(64, '0'),
  };
}
