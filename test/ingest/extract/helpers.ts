import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CandidateFact, EntityRef, ItemContribution } from '../../../src/ingest/extract/contribution.js';
import type { IngestItem } from '../../../src/platform/contract/ingest-item.js';
import type { WebsiteInfo } from '../../../src/control/records/website-info.js';
import { extractItem } from '../../../src/ingest/extract/index.js';

export const site: WebsiteInfo = {
  websiteId: 'site-1',
  domain: 'shop.example',
  brand: 'Acme Shop',
  defaultLanguage: 'en',
  plan: 'free',
  verification: { method: null, state: 'pending' },
  aliases: [],
};

export const RECEIVED = '2026-02-01T12:00:00Z';
export const CHECKSUM = 'sha256:' + 'a'.repeat(64);

export function readPage(name: string): string {
  return readFileSync(join(import.meta.dirname, 'pages', name), 'utf8');
}

export function extractPage(
  name: string,
  type: IngestItem['type'],
  url: string,
  extra: Partial<IngestItem> = {},
): ItemContribution {
  return extractItem({ type, id: name, url, html: readPage(name), checksum: CHECKSUM, ...extra } as IngestItem, site, {
    receivedAt: RECEIVED,
  });
}

export function factsOf(c: ItemContribution, predicate: string, subject: EntityRef = c.primaryEntity): CandidateFact[] {
  return c.facts.filter(
    (f) =>
      f.predicate === predicate && f.subject.type === subject.type && f.subject.canonicalKey === subject.canonicalKey,
  );
}

export function factOf(
  c: ItemContribution,
  predicate: string,
  provenance: string,
  subject: EntityRef = c.primaryEntity,
): CandidateFact | undefined {
  return factsOf(c, predicate, subject).find((f) => f.provenanceMethod === provenance);
}

export function relsOf(c: ItemContribution, type: string): Array<{ from: string; to: string; provenance: string }> {
  return c.relationships
    .filter((r) => r.type === type)
    .map((r) => ({
      from: `${r.from.type}:${r.from.canonicalKey}`,
      to: `${r.to.type}:${r.to.canonicalKey}`,
      provenance: r.provenanceMethod,
    }));
}
