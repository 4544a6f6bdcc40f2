import { createHash } from 'node:crypto';
import type { NodeSink } from '../../src/compiler/sink.js';
import { stableId } from '../../src/ingest/graph/stable-ids.js';
import type { ChunkRow, EntityRow, FactRow, QaRow, RelationshipRow, SourceRow } from '../../src/ingest/graph/types.js';
import type { WebsiteInfo } from '../../src/control/records/website-info.js';

export const WEBSITE = 'web_01JTESTWEBSITE0000000000';

export function site(overrides: Partial<WebsiteInfo> = {}): WebsiteInfo {
  return {
    websiteId: WEBSITE,
    domain: 'shop.example',
    brand: 'Example Shop',
    defaultLanguage: 'en',
    plan: 'pro',
    verification: { method: 'dns_txt', state: 'verified' },
    aliases: [],
    ...overrides,
  };
}

export const sourceId = (url: string) => stableId('src', WEBSITE, url);
export const entityId = (type: string, key: string) => stableId('entity', WEBSITE, type, key);
export const factId = (subject: string, predicate: string, language = 'en') =>
  stableId('fact', WEBSITE, subject, predicate, language);

export function source(url: string, overrides: Partial<SourceRow> = {}): SourceRow {
  return {
    id: sourceId(url),
    url,
    canonicalUrl: null,
    title: `Page ${url}`,
    contentType: 'text/html',
    lastSeenAt: '2026-01-01T00:00:00Z',
    checksum: 'sha256:' + 'a'.repeat(64),
    language: 'en',
    trust: 1,
    ...overrides,
  };
}

export function entity(type: string, name: string, overrides: Partial<EntityRow> = {}): EntityRow {
  const url = `https://shop.example/${name.toLowerCase().replace(/\W+/g, '-')}`;
  return {
    id: entityId(type, url),
    type,
    canonicalKey: url,
    name,
    language: 'en',
    confidence: 0.9,
    provenanceMethod: 'schema_org',
    sourceId: sourceId(url),
    sourceUrl: url,
    importance: 5,
    attributes: {},
    hidden: false,
    ...overrides,
  };
}

export function fact(
  subject: EntityRow,
  predicate: string,
  value: FactRow['value'],
  overrides: Partial<FactRow> = {},
): FactRow {
  return {
    id: factId(subject.id, predicate, overrides.language ?? subject.language),
    subject: subject.name,
    subjectEntityId: subject.id,
    predicate,
    value,
    language: subject.language,
    confidence: 0.9,
    provenanceMethod: 'schema_org',
    unit: null,
    currency: null,
    display: null,
    importance: 4,
    freshness: 'stable',
    validFrom: null,
    validUntil: null,
    sourceId: subject.sourceId,
    sourceUrl: subject.sourceUrl,
    status: 'active',
    editorial: { hidden: false, pinned: false, editorialStatus: null, reviewedBy: null, originalValue: null },
    ...overrides,
  };
}

export function relationship(
  from: EntityRow,
  type: string,
  to: EntityRow | null,
  overrides: Partial<RelationshipRow> = {},
): RelationshipRow {
  const toRef = to?.canonicalKey ?? 'unknown-target';
  return {
    id: stableId('rel', WEBSITE, from.id, type, toRef),
    type,
    fromEntityId: from.id,
    toEntityId: to?.id ?? null,
    toRef,
    resolutionStatus: to === null ? 'dangling' : 'resolved',
    language: from.language,
    confidence: 0.8,
    provenanceMethod: 'schema_org',
    sourceId: from.sourceId,
    sourceUrl: from.sourceUrl,
    ...overrides,
  };
}

export function chunk(text: string, entities: EntityRow[], overrides: Partial<ChunkRow> = {}): ChunkRow {
  return {
    id: stableId('chunk', WEBSITE, text),
    text,
    tokensEstimate: Math.ceil(text.length / 4),
    language: 'en',
    entityIds: entities.map((e) => e.id),
    sourceId: entities[0]?.sourceId ?? null,
    headingPath: [],
    position: 0,
    ...overrides,
  };
}

export function qa(question: string, answer: string, facts: FactRow[], overrides: Partial<QaRow> = {}): QaRow {
  return {
    id: stableId('qa', WEBSITE, question, 'en'),
    question,
    answer,
    language: 'en',
    factIds: facts.map((f) => f.id),
    entityIds: facts.flatMap((f) => (f.subjectEntityId ? [f.subjectEntityId] : [])),
    confidence: 0.8,
    provenanceMethod: 'schema_org',
    stale: false,
    ...overrides,
  };
}

/** Lines of a JSONL file, parsed. */
export function jsonl(text: string | undefined): Array<Record<string, any>> {
  if (text === undefined) throw new Error('file missing');
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));
}

/**
 * A sink that rewrites the text of the files `change` names as the compiler writes them (a
 * defect put into the output after the compiler's own checks), passing the changed bytes and
 * their own checksum and size on to `inner`, as a compiler that wrote them would.
 */
export function alteredSink(inner: NodeSink, change: Record<string, (text: string) => string | Buffer>): NodeSink {
  return {
    open(path) {
      const rewrite = change[path];
      const target = inner.open(path);
      if (rewrite === undefined) return target;
      const parts: Uint8Array[] = [];
      return {
        write: (chunk) => void parts.push(Buffer.from(chunk)),
        close: (written) => {
          const changed = rewrite(Buffer.concat(parts).toString('utf8'));
          const body = typeof changed === 'string' ? Buffer.from(changed, 'utf8') : changed;
          target.write(body);
          const lines = body.toString('utf8').split('\n').length - 1;
          target.close({
            ...written,
            checksum: 'sha256:' + createHash('sha256').update(body).digest('hex'),
            bytes: body.length,
            ...(written.records === undefined ? {} : { records: lines }),
          });
        },
      };
    },
  };
}
