import type { Element, AnyNode, Document } from 'domhandler';
import { jsonrepair } from 'jsonrepair';
import { textOf } from './html-document.js';
import { lookup } from './record-values.js';

/** A schema.org node as a plain object, whether it came from JSON-LD or from microdata. */
export type SchemaNode = Record<string, unknown>;

export interface SchemaNodes {
  /** Top-level nodes (members of @graph included), in document order. */
  nodes: SchemaNode[];
  /** Nodes with an @id, for resolving references such as {"@id": "#author"}. */
  byId: Map<string, SchemaNode>;
}

export function isObject(value: unknown): value is SchemaNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Parses JSON-LD blocks. CDATA wrappers and HTML comments around the JSON are tolerated. A block
 * that is not JSON is repaired when it can be (jsonrepair: raw line breaks and tabs in strings,
 * trailing commas, comments, unescaped quotes, as CMS templates print them; browsers' structured
 * data readers are that lenient too) with the warning `json_ld.repaired`, else skipped with the
 * warning `json_ld.invalid` naming its position; the other blocks are still read.
 */
export function readJsonLd(blocks: string[], warnings: string[]): SchemaNodes {
  const out: SchemaNodes = { nodes: [], byId: new Map() };
  blocks.forEach((block, index) => {
    const text = block
      .trim()
      .replace(/^<!\[CDATA\[|\]\]>$/g, '')
      .replace(/^<!--|-->$/g, '')
      .trim();
    if (text === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      const problem = (error as Error).message;
      const repaired = repairJson(text);
      if (repaired === undefined) {
        warnings.push(`json_ld.invalid: block ${index + 1} skipped: ${problem}`);
        return;
      }
      parsed = repaired;
      warnings.push(`json_ld.repaired: block ${index + 1} is not JSON (${problem}); read as repaired`);
    }
    // Keys written as IRIs ("http://schema.org/name") or CURIEs ("s:name"): read as their terms.
    if (IRI_KEY.test(text)) parsed = withTermKeys(parsed, schemaPrefixes(parsed), 0);
    const roots = Array.isArray(parsed) ? parsed : [parsed];
    for (const root of roots) {
      if (!isObject(root)) continue;
      const graph = root['@graph'];
      if (root['@type'] !== undefined) out.nodes.push(root);
      if (Array.isArray(graph)) {
        for (const member of graph) if (isObject(member)) out.nodes.push(member);
      } else if (isObject(graph)) {
        out.nodes.push(graph);
      }
    }
  });
  out.byId = indexNodes(out.nodes);
  return out;
}

/**
 * The value of a block that is not JSON, repaired by jsonrepair; objects written side by side
 * ("{...} {...}", two blocks pasted into one script) are read as an array of them. Undefined when
 * neither repairs it (or it is nested too deep for the repair's recursion).
 */
function repairJson(text: string): unknown {
  for (const candidate of [text, `[${text.replace(/\}\s*(?=\{)/g, '},')}]`]) {
    try {
      return JSON.parse(jsonrepair(candidate));
    } catch {
      // Try the next reading.
    }
  }
  return undefined;
}

/** A key that is an IRI or a CURIE ("...": ), the cheap test before walking a block for them. */
const IRI_KEY = /"(?:https?:\/\/schema\.org\/|[A-Za-z][\w.-]*:)[A-Za-z]\w*"\s*:/;
const SCHEMA_IRI = /^https?:\/\/schema\.org\/?$/;
const SCHEMA_TERM_IRI = /^https?:\/\/schema\.org\/([A-Za-z][A-Za-z0-9]*)$/;
/** Nesting read when renaming keys, as deep as the mapper reads. */
const MAX_KEY_DEPTH = 32;

/** The prefixes the blocks' top-level @context maps to schema.org ({"@context": {"s": "http://schema.org/"}}). */
function schemaPrefixes(parsed: unknown): Set<string> {
  const prefixes = new Set<string>();
  for (const root of Array.isArray(parsed) ? parsed : [parsed]) {
    if (!isObject(root)) continue;
    for (const context of Array.isArray(root['@context']) ? root['@context'] : [root['@context']]) {
      if (!isObject(context)) continue;
      for (const [prefix, iri] of Object.entries(context))
        if (typeof iri === 'string' && SCHEMA_IRI.test(iri) && !prefix.startsWith('@')) prefixes.add(prefix);
    }
  }
  return prefixes;
}

/** The value with schema.org IRI and CURIE keys renamed to their terms (a key already given as a term wins); objects without such keys are kept as they are. */
function withTermKeys(value: unknown, prefixes: ReadonlySet<string>, depth: number): unknown {
  if (depth > MAX_KEY_DEPTH) return value;
  if (Array.isArray(value)) return value.map((item) => withTermKeys(item, prefixes, depth + 1));
  if (!isObject(value)) return value;
  const out: SchemaNode = {};
  for (const [key, inner] of Object.entries(value)) {
    // "__proto__" names no property; assigned, it would replace the copy's prototype.
    if (key === '__proto__') continue;
    const term = termOf(key, prefixes);
    const read = key === '@context' ? inner : withTermKeys(inner, prefixes, depth + 1);
    if (term === key) out[key] = read;
    // A term the node also states as a term keeps that value; of two IRIs of one term, the first stays.
    else if (!Object.hasOwn(value, term) && !Object.hasOwn(out, term)) out[term] = read;
  }
  return out;
}

function termOf(key: string, prefixes: ReadonlySet<string>): string {
  const iri = SCHEMA_TERM_IRI.exec(key);
  if (iri !== null) return iri[1]!;
  const colon = key.indexOf(':');
  return colon > 0 && prefixes.has(key.slice(0, colon)) && /^[A-Za-z][A-Za-z0-9]*$/.test(key.slice(colon + 1))
    ? key.slice(colon + 1)
    : key;
}

/** Index of the nodes (nested ones included) that carry an @id and a description. */
export function indexNodes(nodes: SchemaNode[]): Map<string, SchemaNode> {
  const byId = new Map<string, SchemaNode>();
  for (const node of nodes) indexIds(node, byId, 0);
  return byId;
}

function indexIds(value: unknown, byId: Map<string, SchemaNode>, depth: number): void {
  if (depth > 12) return;
  if (Array.isArray(value)) {
    for (const item of value) indexIds(item, byId, depth + 1);
    return;
  }
  if (!isObject(value)) return;
  const id = value['@id'];
  if (typeof id === 'string' && Object.keys(value).length > 1) {
    const existing = byId.get(id);
    // Several partial descriptions of one @id are merged, the first one's values winning.
    byId.set(id, existing === undefined ? value : { ...value, ...existing });
  }
  for (const key of Object.keys(value)) if (key !== '@context') indexIds(value[key], byId, depth + 1);
}

/** Follows a bare {"@id": ...} reference to its full node when the page describes it. */
export function resolveRef(value: unknown, byId: Map<string, SchemaNode>): unknown {
  if (!isObject(value)) return value;
  const id = value['@id'];
  if (typeof id !== 'string') return value;
  const full = byId.get(id);
  if (full === undefined || full === value) return value;
  return { ...full, ...value };
}

const VALUE_ATTRIBUTE: Record<string, string> = {
  meta: 'content',
  audio: 'src',
  embed: 'src',
  iframe: 'src',
  img: 'src',
  source: 'src',
  track: 'src',
  video: 'src',
  a: 'href',
  area: 'href',
  link: 'href',
  object: 'data',
  data: 'value',
  meter: 'value',
  time: 'datetime',
};

/** Microdata items (itemscope, itemtype, itemprop) turned into schema nodes shaped like JSON-LD. */
export function readMicrodata(roots: Element[], document?: Document): SchemaNode[] {
  const ids = { document, byId: null as Map<string, Element> | null };
  return roots.map((root) => readItem(root, 0, ids));
}

interface IdIndex {
  document: Document | undefined;
  byId: Map<string, Element> | null;
}

function contains(ancestor: Element, node: Element): boolean {
  for (let current: AnyNode | null = node; current !== null; current = current.parent)
    if (current === ancestor) return true;
  return false;
}

/** Elements by id, built once per page and only when an item has an itemref. */
function elementById(ids: IdIndex, id: string): Element | undefined {
  if (ids.document === undefined) return undefined;
  if (ids.byId === null) {
    ids.byId = new Map();
    const stack: AnyNode[] = [...ids.document.children];
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (node.type !== 'tag') continue;
      const el = node as Element;
      if (el.attribs.id !== undefined && !ids.byId.has(el.attribs.id)) ids.byId.set(el.attribs.id, el);
      for (const child of el.children) stack.push(child);
    }
  }
  return ids.byId.get(id);
}

/** Items nested deeper than this inside one microdata item are not read. */
const MAX_ITEM_DEPTH = 8;

function readItem(el: Element, depth: number, ids: IdIndex): SchemaNode {
  const node: SchemaNode = {};
  const types = (el.attribs.itemtype ?? '')
    .trim()
    .split(/\s+/)
    .filter((t) => t !== '');
  if (types.length === 1) node['@type'] = types[0];
  else if (types.length > 1) node['@type'] = types;
  if (el.attribs.itemid !== undefined) node['@id'] = el.attribs.itemid;
  if (depth < MAX_ITEM_DEPTH) {
    collectProps(el, node, depth, ids);
    // itemref: properties stated elsewhere in the page (by element id) belong to this item too.
    const refs = (el.attribs.itemref ?? '')
      .trim()
      .split(/\s+/)
      .filter((r) => r !== '');
    for (const ref of new Set(refs)) {
      const target = elementById(ids, ref);
      // A target around the item itself would read the item into itself.
      if (target === undefined || contains(target, el)) continue;
      addProps(target, node, depth, ids);
      if (target.attribs.itemscope === undefined) collectProps(target, node, depth, ids);
    }
  }
  // A Breadcrumb keeps its own names (title, child): breadcrumbs.ts reads them.
  return types.some((t) => DATA_VOCABULARY.test(t) && !/\/Breadcrumb$/i.test(t))
    ? withSchemaOrgNames(node, types)
    : node;
}

/** Google's retired vocabulary (data-vocabulary.org: Review, Person, Organization, Event, Product, Offer, Address, Breadcrumb), still in older pages. */
const DATA_VOCABULARY = /^https?:\/\/(?:www\.)?data-vocabulary\.org\//i;
/** Its property names that schema.org names otherwise; the rest are the same words. */
const DATA_VOCABULARY_NAMES: Record<string, string> = {
  itemreviewed: 'itemReviewed',
  reviewer: 'author',
  dtreviewed: 'datePublished',
  rating: 'ratingValue',
  summary: 'description',
  average: 'ratingValue',
  count: 'reviewCount',
  votes: 'ratingCount',
  best: 'bestRating',
  worst: 'worstRating',
  pricerange: 'priceRange',
  currency: 'priceCurrency',
  photo: 'image',
  tel: 'telephone',
  title: 'jobTitle',
  affiliation: 'worksFor',
  nickname: 'alternateName',
  locality: 'addressLocality',
  region: 'addressRegion',
  'postal-code': 'postalCode',
  'country-name': 'addressCountry',
  'street-address': 'streetAddress',
  startdate: 'startDate',
  enddate: 'endDate',
  eventtype: 'eventType',
};

/** A data-vocabulary.org item's properties under their schema.org names. */
function withSchemaOrgNames(node: SchemaNode, types: readonly string[]): SchemaNode {
  const out: SchemaNode = {};
  for (const [key, value] of Object.entries(node)) {
    const name = lookup(DATA_VOCABULARY_NAMES, key.toLowerCase()) ?? key;
    if (!Object.hasOwn(out, name)) out[name] = value;
  }
  // A review states its rating on itself; schema.org puts it in a Rating.
  if (types.some((t) => /\/Review$/i.test(t)) && out.ratingValue !== undefined && out.reviewRating === undefined) {
    out.reviewRating = {
      '@type': 'Rating',
      ratingValue: out.ratingValue,
      bestRating: out.bestRating,
      worstRating: out.worstRating,
    };
    delete out.ratingValue;
    delete out.bestRating;
    delete out.worstRating;
  }
  return out;
}

/**
 * The itemprop values below `owner` that belong to `item`, in document order: a nested
 * itemscope is read as its own item and owns what is below it. An explicit stack, not
 * recursion: the markup between an item and its properties may nest to any depth.
 */
function collectProps(owner: Element, item: SchemaNode, depth: number, ids: IdIndex): void {
  const stack: AnyNode[] = [];
  const pushChildren = (el: Element): void => {
    for (let i = el.children.length - 1; i >= 0; i -= 1) stack.push(el.children[i]!);
  };
  pushChildren(owner);
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type !== 'tag' && node.type !== 'script' && node.type !== 'style') continue;
    const el = node as Element;
    addProps(el, item, depth, ids);
    if (el.attribs.itemscope === undefined) pushChildren(el);
  }
}

/** The properties an element states (itemprop) added to item, several values of one property kept in order. */
function addProps(el: Element, item: SchemaNode, depth: number, ids: IdIndex): void {
  const props = (el.attribs.itemprop ?? '')
    .trim()
    .split(/\s+/)
    .filter((p) => p !== '');
  if (props.length === 0) return;
  const value = el.attribs.itemscope !== undefined ? readItem(el, depth + 1, ids) : propValue(el, props);
  for (const prop of props) {
    // "__proto__" names no property; as a key it would replace the item's prototype.
    if (prop === '__proto__') continue;
    const existing = Object.hasOwn(item, prop) ? item[prop] : undefined;
    if (existing === undefined) item[prop] = value;
    else if (Array.isArray(existing)) existing.push(value);
    else item[prop] = [existing, value];
  }
}

/** Properties whose value is a url; on <a>/<link>/<area> other properties read the element's text. */
const URL_PROPERTY = /url|image|logo|sameas|thumbnail|item$|mainentityofpage|@id|href|photo/i;

/**
 * Properties that name a person or an organization: on a link, its text is the thing's name and
 * its href the thing's own page (<a itemprop="author" href="/staff/jane">Jane Roe</a>).
 */
const THING_PROPERTY =
  /^(?:author|creator|contributor|editor|publisher|brand|manufacturer|performer|organizer|founder|funder|sponsor|actor|director|composer|producer|translator|illustrator|provider|seller|memberOf|worksFor|affiliation|alumniOf)$/;

/** A link (<a>, <area>) whose every property names a person or organization: that thing, named by the link's text, with the link's page; else null. */
export function linkedThing(el: Element, props: readonly string[]): SchemaNode | null {
  if (
    (el.name !== 'a' && el.name !== 'area') ||
    el.attribs.href === undefined ||
    props.length === 0 ||
    !props.every((p) => THING_PROPERTY.test(p))
  )
    return null;
  const name = textOf(el).replace(/\s+/g, ' ').trim();
  return name === '' ? null : { name, url: el.attribs.href };
}

/** The address a mailto: or tel: link holds ("mailto:ola@harbour.example" -> "ola@harbour.example"), else null. */
export function linkAddress(href: string | undefined): string | null {
  const match = href === undefined ? null : /^\s*(?:mailto|tel):([^?#]+)/i.exec(href);
  if (match === null) return null;
  let address = match[1]!;
  try {
    address = decodeURIComponent(address);
  } catch {
    /* a malformed escape stays as written */
  }
  address = address.trim();
  return address === '' ? null : address;
}

function propValue(el: Element, props: string[]): string | SchemaNode {
  const address = el.name === 'a' || el.name === 'area' || el.name === 'link' ? linkAddress(el.attribs.href) : null;
  if (address !== null) return address;
  const attribute = lookup(VALUE_ATTRIBUTE, el.name);
  const linkText = attribute === 'href' && el.name !== 'link' && !props.some((p) => URL_PROPERTY.test(p));
  const thing = linkedThing(el, props);
  if (thing !== null) return thing;
  if (attribute !== undefined && !linkText && el.attribs[attribute] !== undefined) return el.attribs[attribute]!;
  if (el.attribs.content !== undefined) return el.attribs.content;
  return textOf(el).replace(/\s+/g, ' ').trim();
}
