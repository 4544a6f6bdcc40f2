import type { Freshness, ProvenanceMethod } from './contribution.js';
import { lookup } from './record-values.js';

/**
 * Importance (1..5) and freshness of each predicate the extractor emits. Unknown predicates
 * (definition lists, tables, mapped attributes) get DEFAULT_PREDICATE. docs/extraction.md
 * carries the same table; a test keeps the two in sync.
 */
export interface PredicateInfo {
  importance: number;
  freshness: Freshness;
}

export const PREDICATES: Readonly<Record<string, PredicateInfo>> = {
  address: { importance: 4, freshness: 'stable' },
  aggregate_rating: { importance: 3, freshness: 'frequent' },
  area_served: { importance: 3, freshness: 'stable' },
  attendance_mode: { importance: 3, freshness: 'seasonal' },
  author: { importance: 4, freshness: 'stable' },
  availability: { importance: 5, freshness: 'real_time' },
  best_rating: { importance: 2, freshness: 'stable' },
  brand: { importance: 4, freshness: 'stable' },
  canonical_url: { importance: 2, freshness: 'stable' },
  category: { importance: 3, freshness: 'stable' },
  color: { importance: 3, freshness: 'stable' },
  cuisine: { importance: 3, freshness: 'stable' },
  date_created: { importance: 2, freshness: 'stable' },
  date_modified: { importance: 3, freshness: 'frequent' },
  date_published: { importance: 4, freshness: 'stable' },
  description: { importance: 4, freshness: 'stable' },
  duration: { importance: 3, freshness: 'stable' },
  email: { importance: 4, freshness: 'stable' },
  end_date: { importance: 5, freshness: 'seasonal' },
  event_status: { importance: 4, freshness: 'frequent' },
  geo: { importance: 3, freshness: 'stable' },
  gtin: { importance: 3, freshness: 'stable' },
  headline: { importance: 4, freshness: 'stable' },
  html_title: { importance: 1, freshness: 'stable' },
  image: { importance: 2, freshness: 'stable' },
  in_language: { importance: 2, freshness: 'stable' },
  job_title: { importance: 3, freshness: 'stable' },
  keywords: { importance: 2, freshness: 'stable' },
  location: { importance: 5, freshness: 'seasonal' },
  logo: { importance: 2, freshness: 'stable' },
  material: { importance: 2, freshness: 'stable' },
  model: { importance: 3, freshness: 'stable' },
  mpn: { importance: 3, freshness: 'stable' },
  name: { importance: 5, freshness: 'stable' },
  opening_hours: { importance: 5, freshness: 'seasonal' },
  organizer: { importance: 4, freshness: 'stable' },
  price: { importance: 5, freshness: 'frequent' },
  price_range: { importance: 3, freshness: 'seasonal' },
  price_valid_until: { importance: 3, freshness: 'frequent' },
  publisher: { importance: 3, freshness: 'stable' },
  rating_value: { importance: 4, freshness: 'frequent' },
  review_count: { importance: 3, freshness: 'frequent' },
  same_as: { importance: 2, freshness: 'stable' },
  seller: { importance: 3, freshness: 'frequent' },
  site_name: { importance: 3, freshness: 'stable' },
  size: { importance: 3, freshness: 'stable' },
  sku: { importance: 3, freshness: 'stable' },
  start_date: { importance: 5, freshness: 'seasonal' },
  tag: { importance: 2, freshness: 'stable' },
  telephone: { importance: 4, freshness: 'stable' },
  url: { importance: 3, freshness: 'stable' },
  variant: { importance: 3, freshness: 'stable' },
  word_count: { importance: 1, freshness: 'stable' },
  works_for: { importance: 3, freshness: 'stable' },
  worst_rating: { importance: 1, freshness: 'stable' },
};

export const DEFAULT_PREDICATE: PredicateInfo = { importance: 2, freshness: 'stable' };

export function predicateInfo(predicate: string): PredicateInfo {
  return lookup(PREDICATES, predicate) ?? DEFAULT_PREDICATE;
}

/**
 * Base confidence of each provenance (docs/extraction.md "Confidence"). Sources that are
 * heuristic within a provenance subtract from it (see CONFIDENCE_ADJUST).
 */
export const BASE_CONFIDENCE: Readonly<Record<ProvenanceMethod, number>> = {
  cms_field: 0.95,
  schema_org: 0.9,
  seo_meta: 0.8,
  text_extraction: 0.6,
  llm_inferred: 0.5,
};

/**
 * Named sources with their confidence. Within one provenance the order follows what readers
 * trust most (Dublin Core and OpenGraph before a bare meta name, JSON-LD before microdata), so
 * the graph store's survivor rule (provenance, then confidence) picks the same value as
 * Mozilla Readability does for title, byline and description.
 */
export const SOURCE_CONFIDENCE = {
  cmsField: 0.95,
  cmsMapping: 0.95,
  jsonLd: 0.9,
  microdata: 0.85,
  microformats: 0.84,
  rdfa: 0.84,
  metaDublinCore: 0.82,
  metaOpenGraph: 0.8,
  metaName: 0.78,
  metaTwitter: 0.76,
  metaParsely: 0.74,
  htmlTitle: 0.8,
  titleHeuristic: 0.7,
  logoAlt: 0.65,
  copyrightHolder: 0.6,
  bylineElement: 0.55,
  unmarkedByline: 0.5,
  bylineDate: 0.45,
  firstParagraph: 0.5,
  firstHeading: 0.5,
  definitionList: 0.55,
  keyValueTable: 0.5,
  detailsFaq: 0.6,
  questionHeading: 0.5,
  templatedQa: 0.9,
} as const;
