import type { ProvenanceMethod } from '../../platform/contract/index.js';

/** How a value was obtained (docs/contract.md#fact-rules); the graph stores it and node records carry it. */
export type { ProvenanceMethod };
/** How often a fact's value changes. */
export type Freshness = 'stable' | 'seasonal' | 'frequent' | 'real_time';

/**
 * What one ingested item contributes to its website's graph, before ids are assigned. The
 * extractor (src/ingest/extract) produces it from the item alone, as a pure function, and owns this
 * type; the graph store (src/ingest/graph) imports it and merges it into the website's graph, replacing
 * that item's previous contribution.
 * References between records use natural keys, so the extractor needs no database.
 */
export interface EntityRef {
  /** schema.org type name, e.g. Product, Person, Organization. */
  type: string;
  /** Normalised natural key within the type, e.g. a url for an item entity, a lowercased name for a person. */
  canonicalKey: string;
}

export interface CandidateEntity extends EntityRef {
  name: string;
  language: string;
  confidence: number;
  provenanceMethod: ProvenanceMethod;
  importance: number; // 1..5
  attributes: Record<string, unknown>;
}

export interface CandidateFact {
  subject: EntityRef;
  /** Human-readable subject, usually the subject entity's name. */
  subjectName: string;
  predicate: string; // snake_case
  value: string | number | boolean | Record<string, unknown>;
  language: string;
  confidence: number;
  provenanceMethod: ProvenanceMethod;
  unit?: string;
  currency?: string;
  display?: string;
  importance: number; // 1..5
  freshness: Freshness;
  validFrom?: string;
  validUntil?: string;
}

export interface CandidateRelationship {
  from: EntityRef;
  type: string; // authored_by, brand, in_category, tagged, reviews, located_at, organized_by, part_of, ...
  to: EntityRef;
  language: string;
  confidence: number;
  provenanceMethod: ProvenanceMethod;
}

export interface CandidateChunk {
  text: string;
  headingPath: string[];
  /** Order of the chunk within its item, from 0. */
  position: number;
  language: string;
  mentions: EntityRef[];
}

export interface CandidateQa {
  question: string;
  answer: string;
  language: string;
  /** The facts a templated answer was made from, by (subject, predicate). */
  facts: Array<{ subject: EntityRef; predicate: string }>;
  entities: EntityRef[];
  confidence: number;
  provenanceMethod: ProvenanceMethod;
}

export interface ContributionSource {
  url: string;
  canonicalUrl: string | null;
  title: string | null;
  contentType: string;
  checksum: string;
  language: string;
  /** RFC 3339 UTC: the item's updated_at, else the time it was received. */
  lastSeenAt: string;
}

export interface ItemContribution {
  /** `${item.type}:${item.id}`: what a later update or tombstone of the item replaces. */
  itemKey: string;
  /** The item's own entity (first of entities, too). */
  primaryEntity: EntityRef;
  language: string;
  source: ContributionSource;
  entities: CandidateEntity[];
  facts: CandidateFact[];
  relationships: CandidateRelationship[];
  chunks: CandidateChunk[];
  qa: CandidateQa[];
  /** Non-fatal problems, e.g. an invalid JSON-LD block that was skipped. */
  warnings: string[];
}
