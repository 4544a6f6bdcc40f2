import type { SourceType } from '../../platform/contract/ingest-item.js';

/** Type of an item's entity (docs/contract.md#entity-types); JSON-LD @type wins over it. */
export const ITEM_ENTITY_TYPES: Readonly<Record<SourceType, string>> = {
  product: 'Product',
  post: 'BlogPosting',
  page: 'WebPage',
  faq: 'FAQPage',
  review: 'Review',
  event: 'Event',
  location: 'Place',
  profile: 'Person',
  service: 'Service',
  doc: 'TechArticle',
  category: 'CollectionPage',
  collection: 'CollectionPage',
  media: 'MediaObject',
  custom: 'Thing',
};

/** A profile is a Person unless the item says it describes an organization. */
export function itemEntityType(
  type: SourceType,
  json: Record<string, unknown> | undefined,
  attributes: Record<string, unknown> | undefined,
): string {
  if (type !== 'profile') return ITEM_ENTITY_TYPES[type];
  const raw = json?.profile_type ?? json?.kind ?? attributes?.profile_type ?? attributes?.kind;
  // Only a string says which: String() of a deeply nested array would exhaust the stack.
  const kind = typeof raw === 'string' ? raw.toLowerCase() : '';
  return kind === 'organization' || kind === 'organisation' || kind === 'company' ? 'Organization' : 'Person';
}
