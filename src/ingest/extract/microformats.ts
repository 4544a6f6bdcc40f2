import { mf2 } from 'microformats-parser';
import type { SchemaNode } from './json-ld.js';
import { lookup } from './record-values.js';

/**
 * microformats2 (h-card, h-entry, h-event, h-product, h-review, h-adr, h-geo, h-item) read by
 * microformats-parser, implied name, photo and url included, and turned into schema nodes
 * shaped like JSON-LD so the schema.org mapper reads them (docs/extraction.md "Microformats").
 * The caller runs it only when the page has an h-* root class (HtmlScan.hasMicroformats): it
 * parses the page a second time.
 */
const TYPES: Record<string, string> = {
  'h-card': 'Person',
  'h-entry': 'BlogPosting',
  'h-event': 'Event',
  'h-product': 'Product',
  'h-review': 'Review',
  'h-adr': 'PostalAddress',
  'h-geo': 'GeoCoordinates',
  'h-item': 'Thing',
  'h-recipe': 'Recipe',
  'h-cite': 'CreativeWork',
};

/** mf2 property -> schema.org property; properties not listed are not read. */
const PROPERTIES: Record<string, string> = {
  name: 'name',
  summary: 'description',
  note: 'description',
  description: 'description',
  url: 'url',
  photo: 'image',
  logo: 'logo',
  published: 'datePublished',
  updated: 'dateModified',
  author: 'author',
  category: 'keywords',
  start: 'startDate',
  end: 'endDate',
  location: 'location',
  organizer: 'organizer',
  brand: 'brand',
  price: 'price',
  review: 'review',
  rating: 'ratingValue',
  best: 'bestRating',
  worst: 'worstRating',
  item: 'itemReviewed',
  tel: 'telephone',
  email: 'email',
  'job-title': 'jobTitle',
  org: 'worksFor',
  uid: 'identifier',
  'street-address': 'streetAddress',
  locality: 'addressLocality',
  region: 'addressRegion',
  'postal-code': 'postalCode',
  'country-name': 'addressCountry',
  latitude: 'latitude',
  longitude: 'longitude',
  adr: 'address',
  geo: 'geo',
  'given-name': 'givenName',
  'family-name': 'familyName',
  nickname: 'alternateName',
  duration: 'duration',
  yield: 'recipeYield',
  ingredient: 'recipeIngredient',
  'same-as': 'sameAs',
  syndication: 'sameAs',
  featured: 'image',
  bday: 'birthDate',
  instructions: 'recipeInstructions',
  content: 'text',
};
const ADDRESS_PARTS = ['streetAddress', 'addressLocality', 'addressRegion', 'postalCode', 'addressCountry'];

interface MfItem {
  type?: string[];
  properties?: Record<string, unknown[]>;
  value?: unknown;
  children?: MfItem[];
}

export function readMicroformats(html: string, baseUrl: string): SchemaNode[] {
  let items: MfItem[];
  try {
    items = mf2(html, { baseUrl }).items as MfItem[];
  } catch {
    return [];
  }
  const out: SchemaNode[] = [];
  for (const item of items) {
    const node = toNode(item, 0);
    if (node !== null) out.push(node);
  }
  return out;
}

const MAX_DEPTH = 8;

function toNode(item: MfItem, depth: number): SchemaNode | null {
  const type = (item.type ?? []).map((t) => lookup(TYPES, t)).find((t) => t !== undefined);
  if (type === undefined || depth > MAX_DEPTH) return null;
  const node: SchemaNode = { '@type': type };
  for (const [key, values] of Object.entries(item.properties ?? {})) {
    const property = lookup(PROPERTIES, key);
    if (property === undefined) continue;
    const read = values.map((v) => readValue(v, depth)).filter((v) => v !== null);
    if (read.length > 0) node[property] = read.length === 1 ? read[0] : read;
  }
  // A nested h-review with no property class (a child item) reviews its parent.
  for (const child of item.children ?? []) {
    const review = (child.type ?? []).includes('h-review') ? toNode(child, depth + 1) : null;
    if (review !== null)
      node.review = [
        ...(Array.isArray(node.review) ? node.review : node.review === undefined ? [] : [node.review]),
        review,
      ];
  }
  // An h-card as an event's location is a place.
  const location = node.location;
  if (
    typeof location === 'object' &&
    location !== null &&
    !Array.isArray(location) &&
    (location as SchemaNode)['@type'] === 'Person'
  )
    (location as SchemaNode)['@type'] = 'Place';
  if (typeof node.email === 'string') node.email = node.email.replace(/^mailto:/i, '');
  if (typeof node.telephone === 'string') node.telephone = node.telephone.replace(/^tel:/i, '');
  // An h-card whose name is its org is an organization (the mf2 convention).
  if (type === 'Person' && node.worksFor !== undefined && node.worksFor === node.name) {
    node['@type'] = 'Organization';
    delete node.worksFor;
  }
  // Address parts stated on an h-card, h-event or h-product itself make its address.
  if (type !== 'PostalAddress' && node.address === undefined && ADDRESS_PARTS.some((p) => node[p] !== undefined)) {
    const address: SchemaNode = { '@type': 'PostalAddress' };
    for (const part of ADDRESS_PARTS) if (node[part] !== undefined) address[part] = node[part];
    node.address = address;
  }
  // A review's content is its body (an entry's is the page's text, which the chunks hold).
  if (type === 'Review' && node.text !== undefined) {
    node.reviewBody = node.text;
    delete node.text;
  }
  if (type === 'Review' && node.ratingValue !== undefined) {
    node.reviewRating = {
      '@type': 'Rating',
      ratingValue: node.ratingValue,
      bestRating: node.bestRating,
      worstRating: node.worstRating,
    };
    delete node.ratingValue;
  }
  if (type === 'Product' && node.price !== undefined) {
    node.offers = { '@type': 'Offer', price: node.price };
    delete node.price;
  }
  return node;
}

function readValue(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return value === '' ? null : value;
  if (typeof value !== 'object' || value === null) return null;
  const v = value as MfItem & { html?: string; alt?: string };
  if (Array.isArray(v.type)) return toNode(v, depth + 1) ?? (typeof v.value === 'string' ? v.value : null);
  // e-* ({html, value}) and u-photo with alt ({value, alt}) carry their text or url in value.
  return typeof v.value === 'string' && v.value !== '' ? v.value : null;
}
