import type { EntityRef } from './contribution.js';
import type { WebsiteInfo } from '../../control/records/website-info.js';
import { isObject, resolveRef, type SchemaNode } from './json-ld.js';
import { cleanByline } from './byline.js';
import { identityType, typeFamily } from './identity.js';
import {
  absoluteUrl,
  cleanText,
  nameKey,
  normalizeDate,
  parseAmount,
  schemaTerm,
  unescapeHtml,
  urlKey,
} from './normalize.js';
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
  return (
    textValue(node.name) ??
    textValue(node.headline) ??
    textValue(node.legalName) ??
    (given !== null || family !== null ? cleanText(`${given ?? ''} ${family ?? ''}`) : null) ??
    textValue(node.alternateName)
  );
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
  /** Identity urls that several different things on the page claim (sharedIdentityUrls): they identify none of them. */
  sharedUrls?: ReadonlySet<string>;
}

/** True when an organization value names the website itself (by brand or by url host). */
export function isSiteOrganization(name: string, node: SchemaNode | null, ctx: EntityContext): boolean {
  if (nameKey(name) === nameKey(ctx.site.brand) || nameKey(name) === nameKey(ctx.site.domain)) return true;
  const url = node === null ? null : urlValue(node.url ?? node['@id'], ctx.baseUrl);
  if (url === null) return false;
  const host = new URL(url).hostname.replace(/^www\./, '');
  return host === ctx.site.domain.replace(/^www\./, '') && new URL(url).pathname.length <= 1;
}

/** Longest plain-text value taken as a name: longer text is a container's (a whole author card). */
const MAX_NAME_CHARS = 100;

/** A person's name cleaned as a byline is ("By Lucy Akins", as microdata reads it from a byline, is Lucy Akins); as given when nothing name-like would be left. */
export function personName(raw: string): string {
  return cleanByline(raw, MAX_NAME_CHARS) ?? raw;
}

/** A plain-text reference names a thing only when it is short; microdata on a block element is not. */
export function looksLikeName(text: string): boolean {
  return text.length <= MAX_NAME_CHARS;
}

/**
 * The entity a property value names (docs/contract.md#entity-identity): a string is a name of
 * the default type; an object is resolved through @id and typed by its own @type, and keyed by
 * its identity url (identityUrl) unless other things on the page claim that url too, else by its
 * natural key (naturalKey). The website's own organization maps to the site entity.
 */
export function resolveEntity(value: unknown, defaultType: string, ctx: EntityContext): ResolvedEntity | null {
  return resolveEntityAt(value, defaultType, ctx, true);
}

/** withLocation: an event's key names its place (not for the place of an event's place). */
function resolveEntityAt(
  value: unknown,
  defaultType: string,
  ctx: EntityContext,
  withLocation: boolean,
): ResolvedEntity | null {
  const resolved = resolveRef(value, ctx.byId);
  if (typeof resolved === 'string' || typeof resolved === 'number') {
    const name = textValue(resolved);
    if (name === null || /^https?:\/\//i.test(name) || !looksLikeName(name)) return null;
    if (defaultType === 'Organization' && isSiteOrganization(name, null, ctx))
      return { ref: ctx.siteRef, name: ctx.site.brand, node: null };
    return { ref: { type: defaultType, canonicalKey: nameKey(name) }, name, node: null };
  }
  if (!isObject(resolved)) return null;
  const type = typesOf(resolved)[0] ?? defaultType;
  const rawName = nodeName(resolved);
  // A thing without a name (or named by a bare url) is not worth an entity of its own.
  if (rawName === null || /^https?:\/\//i.test(rawName)) return null;
  const name = identityType(type) === 'Person' ? personName(rawName) : rawName;
  if ((type === 'Organization' || defaultType === 'Organization') && isSiteOrganization(name, resolved, ctx)) {
    return { ref: ctx.siteRef, name: ctx.site.brand, node: resolved };
  }
  const url = identityUrl(resolved, ctx.baseUrl, identityType(type) === 'Person');
  const key =
    url !== null && ctx.sharedUrls?.has(identityGroup(type, url)) !== true
      ? url
      : naturalKey(name, type, resolved, ctx, withLocation);
  return { ref: { type, canonicalKey: key }, name, node: resolved };
}

/**
 * The url that identifies a described thing, as a urlKey: its schema.org url, else an @id that
 * is an http(s) url, else its first sameAs. An @id's fragment is dropped when it is a word
 * ("…/tom-baker#person" is the thing of the page …/tom-baker) and kept when it is a path
 * (Yoast's "https://site/#/schema/person/<hash>" names one of many things at the site's root).
 * For a person (`person`), a page that lists many people or is the website's home (personPage)
 * identifies no one: the next candidate does.
 */
export function identityUrl(node: SchemaNode, baseUrl: string, person = false): string | null {
  const url = urlValue(node.url, baseUrl);
  const candidates: Array<string | null> = [url === null ? null : urlKey(url), idUrl(node['@id'])];
  for (const same of urlValues(node.sameAs, baseUrl)) candidates.push(urlKey(same));
  for (const key of candidates) if (key !== null && (!person || personPage(key, baseUrl))) return key;
  return null;
}

function idUrl(id: unknown): string | null {
  if (typeof id !== 'string' || !/^https?:\/\//i.test(id.trim())) return null;
  const key = urlKey(id);
  const fragment = id.includes('#') ? id.slice(id.indexOf('#')) : '';
  return key === null ? null : fragment.includes('/') ? key + fragment : key;
}

/** Last path segments of pages about many people ("/company/team/", "/authors", "/about-us"). */
const LISTING_PAGE =
  /^(?:team|teams|our-team|the-team|meet-the-team|people|staff|authors?|contributors?|writers?|editors?|editorial|journalists?|about|about-us|aboutus|contact|contact-us|company|leadership|newsroom|news|blog|masthead|us)$/i;

/**
 * Whether a url (a urlKey) can be one person's own page: not a page about many people, and not
 * the home page of the website the item is on (a post's author given as the site's url would
 * make every author of the site one person). A person's own site elsewhere is their page.
 */
export function personPage(key: string, baseUrl: string): boolean {
  const url = URL_PARTS.exec(key);
  if (url === null) return false;
  const [, host, path = '', hash = ''] = url;
  const last = path
    .split('/')
    .filter((segment) => segment !== '')
    .pop();
  if (last !== undefined) return !LISTING_PAGE.test(last);
  if (hash !== '') return true;
  return host!.toLowerCase() !== (URL_PARTS.exec(baseUrl)?.[1] ?? '').toLowerCase();
}

/** An http(s) url's host, path and fragment (a urlKey, without parsing it again). */
const URL_PARTS = /^https?:\/\/([^/?#]+)([^?#]*)(?:\?[^#]*)?(#.*)?$/i;

function identityGroup(type: string, url: string): string {
  return identityType(type) + '\u001f' + url;
}

/** Deepest nesting the shared-url scan walks, as the @id index (json-ld.ts). */
const MAX_SCAN_DEPTH = 12;

/**
 * Identity urls (per type family) that two or more different things on the page claim: a tour
 * page whose thirteen concerts all link one ticket page, a chain's stores linking the brand's
 * home page, product variants on one page. Such a url identifies none of them; they are keyed
 * by their natural keys instead. Things differ when they state different start dates or places
 * (events), addresses or coordinates (places), or, for anything else, names; one festival
 * described twice, once with its dates and once without, is one thing.
 */
export function sharedIdentityUrls(nodes: readonly SchemaNode[], ctx: EntityContext): Set<string> {
  const claims = new Map<string, Array<Record<string, string>>>();
  const shared = new Set<string>();
  const stack: Array<{ value: unknown; depth: number }> = nodes.map((value) => ({ value, depth: 0 }));
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!;
    if (Array.isArray(value)) {
      if (depth < MAX_SCAN_DEPTH) for (const item of value) stack.push({ value: item, depth: depth + 1 });
      continue;
    }
    if (!isObject(value)) continue;
    const type = typesOf(value)[0];
    const name = type === undefined ? null : nodeName(value);
    const url =
      name === null || type === undefined ? null : identityUrl(value, ctx.baseUrl, identityType(type) === 'Person');
    if (type !== undefined && name !== null && url !== null) {
      const group = identityGroup(type, url);
      const { family, parts } = keyParts(type, value, ctx, true);
      const signature = family === null ? { name: nameKey(name) } : parts;
      const earlier = claims.get(group) ?? [];
      if (earlier.some((other) => differ(other, signature))) shared.add(group);
      earlier.push(signature);
      claims.set(group, earlier);
    }
    if (depth < MAX_SCAN_DEPTH)
      for (const key of Object.keys(value)) if (key !== '@context') stack.push({ value: value[key], depth: depth + 1 });
  }
  return shared;
}

/** Two signatures differ when a part both state has different values. */
function differ(a: Record<string, string>, b: Record<string, string>): boolean {
  return Object.keys(a).some((key) => b[key] !== undefined && b[key] !== a[key]);
}

const NOT_PLACE = new Set(['PostalAddress', 'Brand', 'Offer', 'GeoCoordinates']);
const CREATIVE_WORK = /Article|Posting|Work|Page|Book|Movie|Recording|Album|Recipe|Review|Course|Application|Object$/;

/**
 * What keys a thing without an identity url besides its name: an Event its start date and
 * place, a Place (any subtype, or a thing of no family that states an address or geo) its
 * address, else its coordinates.
 */
/** A product's own identifiers, most global first: what tells apart variants of one name (sizes, colours). */
const PRODUCT_IDS = ['gtin14', 'gtin13', 'gtin12', 'gtin8', 'gtin', 'isbn', 'sku', 'mpn'] as const;

function keyParts(
  type: string,
  node: SchemaNode,
  ctx: EntityContext,
  withLocation: boolean,
): { family: 'Event' | 'Place' | 'Product' | null; parts: Record<string, string> } {
  const parts: Record<string, string> = {};
  const family = typeFamily(type);
  if (family === 'Product') {
    for (const property of PRODUCT_IDS) {
      const id = textValue(asList(node[property])[0]);
      if (id === null) continue;
      parts.id = `${property.startsWith('gtin') ? 'gtin' : property}:${id.toLowerCase()}`;
      break;
    }
    return { family: 'Product', parts };
  }
  if (family === 'Event') {
    const start = normalizeDate(textValue(node.startDate));
    const location = withLocation ? locationKey(asList(node.location)[0], ctx) : null;
    if (start !== null) parts.start = start;
    if (location !== null) parts.location = location;
    return { family: 'Event', parts };
  }
  if (
    family === 'Place' ||
    (family === null &&
      !NOT_PLACE.has(type) &&
      !CREATIVE_WORK.test(type) &&
      (node.address !== undefined || node.geo !== undefined))
  ) {
    const address = addressValue(resolveRef(asList(node.address)[0], ctx.byId));
    if (address !== null) parts.address = nameKey(address);
    const geo = resolveRef(asList(node.geo)[0], ctx.byId);
    if (isObject(geo)) {
      const latitude = parseAmount(textValue(geo.latitude));
      const longitude = parseAmount(textValue(geo.longitude));
      if (latitude !== null && longitude !== null) parts.geo = `geo:${latitude},${longitude}`;
    }
    return { family: 'Place', parts };
  }
  return { family: null, parts };
}

/**
 * How a thing without an identity url is keyed (docs/extraction.md "Entities and canonical
 * keys"): an Event by name, start date and place ("<name> @ <start> @ <place key>"), a Place by
 * name and address ("<name>, <address>"), else name and coordinates ("<name>, geo:<lat>,<lon>"),
 * a Product by name and its first identifier ("<name> # gtin:<gtin>", else its isbn, sku or mpn),
 * anything else by name.
 */
function naturalKey(name: string, type: string, node: SchemaNode, ctx: EntityContext, withLocation: boolean): string {
  const { family, parts } = keyParts(type, node, ctx, withLocation);
  if (family === 'Event')
    return [nameKey(name), parts.start, parts.location].filter((p) => p !== undefined).join(' @ ');
  if (family === 'Product' && parts.id !== undefined) return `${nameKey(name)} # ${parts.id}`;
  if (family === 'Place') {
    if (parts.address !== undefined && parts.address !== nameKey(name)) return `${nameKey(name)}, ${parts.address}`;
    if (parts.geo !== undefined) return `${nameKey(name)}, ${parts.geo}`;
  }
  return nameKey(name);
}

/** The key of an event's location: the place's own key, else its address, else its url (a VirtualLocation). */
function locationKey(value: unknown, ctx: EntityContext): string | null {
  if (value === undefined) return null;
  const place = resolveEntityAt(value, 'Place', ctx, false);
  if (place !== null) return place.ref.canonicalKey;
  const resolved = resolveRef(value, ctx.byId);
  const address = addressValue(resolved);
  if (address !== null) return nameKey(address);
  const url = isObject(resolved) ? urlValue(resolved.url, ctx.baseUrl) : null;
  return url === null ? null : urlKey(url);
}

const DAYS: Record<string, string> = {
  monday: 'Mo',
  tuesday: 'Tu',
  wednesday: 'We',
  thursday: 'Th',
  friday: 'Fr',
  saturday: 'Sa',
  sunday: 'Su',
  publicholidays: 'PH',
};

function hhmm(value: unknown): string | null {
  const text = textValue(value);
  if (text === null) return null;
  const match = /^(\d{1,2}):(\d{2})/.exec(text);
  return match === null ? text : `${match[1]!.padStart(2, '0')}:${match[2]}`;
}

/** Opening hours in the schema.org openingHours text form ("Mo,Tu 09:00-17:00"), joined by "; ". */
const DAY_NAMES: Record<string, string> = {
  Mo: 'Monday',
  Tu: 'Tuesday',
  We: 'Wednesday',
  Th: 'Thursday',
  Fr: 'Friday',
  Sa: 'Saturday',
  Su: 'Sunday',
  PH: 'public holidays',
};
const DAY_ABBREVIATION = /\b(Mo|Tu|We|Th|Fr|Sa|Su|PH)\b/g;

/**
 * A place's opening hours in schema.org's openingHours form ("Mo,Tu 08:00-18:00; Sa 09:00-13:00"),
 * from its openingHours texts and its OpeningHoursSpecifications, with a display that names the
 * days in full ("Monday, Tuesday 08:00-18:00; Saturday 09:00-13:00").
 */
export function openingHours(node: SchemaNode): { value: string; display: string } | null {
  const value = openingHoursValue(node);
  if (value === null) return null;
  return { value, display: value.replace(DAY_ABBREVIATION, (day) => DAY_NAMES[day]!).replace(/,(?=\S)/g, ', ') };
}

function openingHoursValue(node: SchemaNode): string | null {
  const parts: string[] = [];
  for (const item of asList(node.openingHours)) {
    const text = textValue(item);
    if (text !== null) parts.push(text);
  }
  for (const raw of asList(node.openingHoursSpecification)) {
    if (!isObject(raw)) continue;
    const days = asList(raw.dayOfWeek)
      .map((d) => textValue(d))
      .filter((d): d is string => d !== null)
      .map((d) => lookup(DAYS, schemaTerm(d).toLowerCase()) ?? schemaTerm(d));
    const opens = hhmm(raw.opens);
    const closes = hhmm(raw.closes);
    const hours = opens !== null && closes !== null ? `${opens}-${closes}` : (opens ?? closes ?? 'closed');
    parts.push(days.length > 0 ? `${days.join(',')} ${hours}` : hours);
  }
  return parts.length === 0 ? null : parts.join('; ');
}

/** A postal address as one line: street, postal code and locality, region, country. */
export function addressValue(value: unknown): string | null {
  if (typeof value === 'string') return textValue(value);
  if (!isObject(value)) return textValue(value);
  const country = isObject(value.addressCountry)
    ? textValue(value.addressCountry.name)
    : textValue(value.addressCountry);
  const locality = [textValue(value.postalCode), textValue(value.addressLocality)].filter((p) => p !== null).join(' ');
  const parts = [
    textValue(value.streetAddress),
    locality === '' ? null : locality,
    textValue(value.addressRegion),
    country,
  ];
  const line = parts.filter((p): p is string => p !== null && p !== '').join(', ');
  return line === '' ? textValue(value.name) : line;
}
