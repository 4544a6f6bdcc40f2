import type { EntityRef } from './contribution.js';
import type { WebsiteInfo } from '../website/types.js';
import { isObject, resolveRef, type SchemaNode } from './json-ld.js';
import { absoluteUrl, cleanText, nameKey, normalizeDate, schemaTerm, unescapeHtml, urlKey } from './normalize.js';
import { lookup, toTypeName } from './record-values.js';

/** Reading helpers for schema.org values, shared by the JSON-LD and microdata mappers. */

export function asList(value: unknown): unknown[] {
  if (value === undefined || value === null) return [];
  return Array.isArray(value) ? value : [value];
}

const TAGS = /<[^>]*>/g;

/**
 * How many arrays and {"@value"} wrappers deep a text or url value is looked for. Real values
 * nest one or two levels; the bound keeps a value nested thousands deep from exhausting the stack.
 */
const MAX_VALUE_DEPTH = 8;

/** A clean string from a schema.org text value (string, number, {"@value"}, first of an array). */
export function textValue(value: unknown): string | null {
  return readText(value, 0);
}

function readText(value: unknown, depth: number): string | null {
  if (typeof value === 'string') {
    const text = cleanText(unescapeHtml(value.includes('<') ? value.replace(TAGS, ' ') : value));
    return text === '' ? null : text;
  }
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (depth >= MAX_VALUE_DEPTH) return null;
  if (Array.isArray(value)) {
    for (const item of value) {
      const text = readText(item, depth + 1);
      if (text !== null) return text;
    }
    return null;
  }
  if (isObject(value) && value['@value'] !== undefined) return readText(value['@value'], depth + 1);
  return null;
}

/** The schema.org types of a node, as type names (toTypeName); @type values that name none are left out. */
/** Every clean text of a value (an array's items, {"@value"} wrappers), in source order. */
export function textValues(value: unknown): string[] {
  const out: string[] = [];
  for (const item of asList(value)) {
    const text = readText(item, 1);
    if (text !== null) out.push(text);
  }
  return out;
}

export function typesOf(node: SchemaNode): string[] {
  const types: string[] = [];
  for (const raw of asList(node['@type'])) {
    const type = typeof raw === 'string' ? toTypeName(raw) : null;
    if (type !== null) types.push(type);
  }
  return types;
}

export function nodeName(node: SchemaNode): string | null {
  const given = textValue(node.givenName);
  const family = textValue(node.familyName);
  return textValue(node.name) ?? textValue(node.headline) ?? textValue(node.legalName)
    ?? (given !== null || family !== null ? cleanText(`${given ?? ''} ${family ?? ''}`) : null) ?? textValue(node.alternateName);
}

/** The first url of a url-ish value (string, ImageObject, array). */
export function urlValue(value: unknown, base: string): string | null {
  return readUrl(value, base, 0);
}

function readUrl(value: unknown, base: string, depth: number): string | null {
  if (depth >= MAX_VALUE_DEPTH) return null;
  for (const item of asList(value)) {
    if (typeof item === 'string') {
      const url = absoluteUrl(item, base);
      if (url !== null) return url;
    } else if (isObject(item)) {
      const url = readUrl(item.url ?? item.contentUrl ?? item['@id'], base, depth + 1);
      if (url !== null) return url;
    }
  }
  return null;
}

/** Every url of a url-ish value, in source order. */
export function urlValues(value: unknown, base: string): string[] {
  const out: string[] = [];
  for (const item of asList(value)) {
    const url = readUrl(item, base, 1);
    if (url !== null) out.push(url);
  }
  return out;
}

/** Types keyed by their url when they have one (things with a page of their own). */
const URL_KEYED = new Set(['Product', 'Event', 'Article', 'NewsArticle', 'BlogPosting', 'Book', 'Movie', 'Recipe', 'Course', 'SoftwareApplication', 'Service', 'CreativeWork', 'WebPage']);

export interface ResolvedEntity {
  ref: EntityRef;
  name: string;
  node: SchemaNode | null;
}

export interface EntityContext {
  site: WebsiteInfo;
  siteRef: EntityRef;
  baseUrl: string;
  byId: Map<string, SchemaNode>;
}

/** True when an organization value names the website itself (by brand or by url host). */
export function isSiteOrganization(name: string, node: SchemaNode | null, ctx: EntityContext): boolean {
  if (nameKey(name) === nameKey(ctx.site.brand) || nameKey(name) === nameKey(ctx.site.domain)) return true;
  const url = node === null ? null : urlValue(node.url ?? node['@id'], ctx.baseUrl);
  if (url === null) return false;
  const host = new URL(url).hostname.replace(/^www\./, '');
  return host === ctx.site.domain.replace(/^www\./, '') && new URL(url).pathname.length <= 1;
}

/**
 * The entity a property value names: a string is a name of the default type; an object is
 * resolved through @id and typed by its own @type. Names are keyed by nameKey, page-like things
 * with a url by urlKey. The website's own organization maps to the site entity.
 */
/** Longest plain-text value taken as a name: longer text is a container's (a whole author card). */
const MAX_NAME_CHARS = 100;

/** A plain-text reference names a thing only when it is short; microdata on a block element is not. */
function looksLikeName(text: string): boolean {
  return text.length <= MAX_NAME_CHARS;
}

export function resolveEntity(value: unknown, defaultType: string, ctx: EntityContext): ResolvedEntity | null {
  const resolved = resolveRef(value, ctx.byId);
  if (typeof resolved === 'string' || typeof resolved === 'number') {
    const name = textValue(resolved);
    if (name === null || /^https?:\/\//i.test(name) || !looksLikeName(name)) return null;
    if (defaultType === 'Organization' && isSiteOrganization(name, null, ctx)) return { ref: ctx.siteRef, name: ctx.site.brand, node: null };
    return { ref: { type: defaultType, canonicalKey: nameKey(name) }, name, node: null };
  }
  if (!isObject(resolved)) return null;
  const type = typesOf(resolved)[0] ?? defaultType;
  const rawName = nodeName(resolved);
  const name = rawName !== null && /^https?:\/\//i.test(rawName) ? null : rawName;
  const url = urlValue(resolved.url ?? (typeof resolved['@id'] === 'string' && /^https?:/.test(resolved['@id']) ? resolved['@id'] : undefined), ctx.baseUrl);
  // A thing without a name (or named by a bare url) is not worth an entity of its own.
  if (name === null) return null;
  const label = name;
  if ((type === 'Organization' || defaultType === 'Organization') && name !== null && isSiteOrganization(name, resolved, ctx)) {
    return { ref: ctx.siteRef, name: ctx.site.brand, node: resolved };
  }
  const family = familyOf(type, resolved);
  const key = (URL_KEYED.has(type) || family !== null) && url !== null ? urlKey(url) : null;
  return { ref: { type, canonicalKey: key ?? namedKey(label, family, resolved) }, name: label, node: resolved };
}

const EVENT_TYPES = /Event$|^(Festival|Hackathon|CourseInstance|EventSeries)$/;
const PLACE_TYPES = new Set([
  'Place', 'LocalBusiness', 'Accommodation', 'AdministrativeArea', 'City', 'Country', 'State', 'CivicStructure', 'Landform',
  'LandmarksOrHistoricalBuildings', 'Residence', 'TouristAttraction', 'TouristDestination', 'Restaurant', 'Hotel', 'Museum',
  'Park', 'MusicVenue', 'EventVenue', 'StadiumOrArena', 'PerformingArtsTheater', 'MovieTheater', 'Store', 'Cafe', 'Bar',
  'BarOrPub', 'CafeOrCoffeeShop', 'FoodEstablishment', 'Library', 'Airport', 'TrainStation', 'BusStation', 'Beach', 'Mountain',
  'LodgingBusiness', 'Campground', 'Zoo', 'Aquarium', 'ArtGallery', 'Church', 'PlaceOfWorship', 'School', 'Hospital',
]);
const NOT_PLACE = new Set(['Person', 'Organization', 'Corporation', 'Product', 'Offer', 'PostalAddress', 'Brand']);

/**
 * Event and Place families (docs/contract.md#entity-identity): any subtype is keyed by its url,
 * else an Event by name and start date and a Place by name and address. A type not listed
 * counts as a place when it states an address or geo and is not a person, organization or product.
 */
function familyOf(type: string, node: SchemaNode): 'Event' | 'Place' | null {
  if (EVENT_TYPES.test(type)) return 'Event';
  if (PLACE_TYPES.has(type) || /(Store|Shop|Restaurant|Hotel|Venue|Park|Station)$/.test(type)) return 'Place';
  if (!NOT_PLACE.has(type) && !CREATIVE_WORK.test(type) && (node.address !== undefined || node.geo !== undefined)) return 'Place';
  return null;
}
const CREATIVE_WORK = /Article|Posting|Work|Page|Book|Movie|Recording|Album|Recipe|Review|Course|Application|Object$/;

function namedKey(name: string, family: 'Event' | 'Place' | null, node: SchemaNode): string {
  if (family === 'Event') {
    const start = normalizeDate(textValue(node.startDate));
    if (start !== null) return `${nameKey(name)} @ ${start}`;
  } else if (family === 'Place') {
    const address = addressValue(resolveRefLoose(node.address));
    if (address !== null && nameKey(address) !== nameKey(name)) return `${nameKey(name)}, ${nameKey(address)}`;
  }
  return nameKey(name);
}

function resolveRefLoose(value: unknown): unknown {
  return Array.isArray(value) ? value[0] : value;
}

const DAYS: Record<string, string> = { monday: 'Mo', tuesday: 'Tu', wednesday: 'We', thursday: 'Th', friday: 'Fr', saturday: 'Sa', sunday: 'Su', publicholidays: 'PH' };

function hhmm(value: unknown): string | null {
  const text = textValue(value);
  if (text === null) return null;
  const match = /^(\d{1,2}):(\d{2})/.exec(text);
  return match === null ? text : `${match[1]!.padStart(2, '0')}:${match[2]}`;
}

/** Opening hours in the schema.org openingHours text form ("Mo,Tu 09:00-17:00"), joined by "; ". */
export function openingHoursValue(node: SchemaNode): string | null {
  const parts: string[] = [];
  for (const item of asList(node.openingHours)) {
    const text = textValue(item);
    if (text !== null) parts.push(text);
  }
  for (const raw of asList(node.openingHoursSpecification)) {
    if (!isObject(raw)) continue;
    const days = asList(raw.dayOfWeek).map((d) => textValue(d)).filter((d): d is string => d !== null)
      .map((d) => lookup(DAYS, schemaTerm(d).toLowerCase()) ?? schemaTerm(d));
    const opens = hhmm(raw.opens);
    const closes = hhmm(raw.closes);
    const hours = opens !== null && closes !== null ? `${opens}-${closes}` : opens ?? closes ?? 'closed';
    parts.push(days.length > 0 ? `${days.join(',')} ${hours}` : hours);
  }
  return parts.length === 0 ? null : parts.join('; ');
}

/** A postal address as one line: street, postal code and locality, region, country. */
export function addressValue(value: unknown): string | null {
  if (typeof value === 'string') return textValue(value);
  if (!isObject(value)) return textValue(value);
  const country = isObject(value.addressCountry) ? textValue(value.addressCountry.name) : textValue(value.addressCountry);
  const locality = [textValue(value.postalCode), textValue(value.addressLocality)].filter((p) => p !== null).join(' ');
  const parts = [textValue(value.streetAddress), locality === '' ? null : locality, textValue(value.addressRegion), country];
  const line = parts.filter((p): p is string => p !== null && p !== '').join(', ');
  return line === '' ? textValue(value.name) : line;
}
