import type { EntityRef } from './contribution.js';
import type { ProvenanceMethod } from './contribution.js';
import type { ContributionBuilder } from './contribution-builder.js';
import { isObject, resolveRef, type SchemaNode } from './json-ld.js';
import {
  formatMoney,
  nameKey,
  normalizeCurrency,
  normalizeDate,
  normalizeDateTime,
  parseAmount,
  schemaTerm,
  urlKey,
} from './normalize.js';
import { commaItems, listValue } from './multi-value.js';
import { cleanByline } from './byline.js';
import { personNames } from './person-names.js';
import { lookup, toPredicate } from './record-values.js';
import { PREDICATES } from './predicates.js';
import {
  addressValue,
  asList,
  looksLikeName,
  nodeName,
  openingHours,
  resolveEntity,
  textValue,
  textValues,
  typesOf,
  urlValue,
  urlValues,
  type EntityContext,
} from './schema-values.js';

/** Maps schema.org nodes (JSON-LD or microdata) to facts, entities and relationships. */
export interface SchemaContext extends EntityContext {
  builder: ContributionBuilder;
  provenance: ProvenanceMethod;
  confidence: number;
}

const TEXT_PROPERTIES: Record<string, string> = {
  alternativeHeadline: 'alternative_headline',
  areaServed: 'area_served',
  award: 'award',
  color: 'color',
  description: 'description',
  duration: 'duration',
  email: 'email',
  faxNumber: 'fax_number',
  genre: 'genre',
  gtin: 'gtin',
  gtin12: 'gtin',
  gtin13: 'gtin',
  gtin14: 'gtin',
  gtin8: 'gtin',
  headline: 'headline',
  inLanguage: 'in_language',
  isbn: 'isbn',
  jobTitle: 'job_title',
  material: 'material',
  model: 'model',
  mpn: 'mpn',
  pattern: 'pattern',
  priceRange: 'price_range',
  productGroupID: 'product_group_id',
  size: 'size',
  servesCuisine: 'cuisine',
  serviceType: 'service_type',
  sku: 'sku',
  telephone: 'telephone',
  typicalAgeRange: 'typical_age_range',
  reviewBody: 'review_body',
  isbn10: 'isbn',
  isbn13: 'isbn',
  alternateName: 'alternate_name',
};
const TERM_PROPERTIES: Record<string, string> = {
  eventStatus: 'event_status',
  eventAttendanceMode: 'attendance_mode',
  bookFormat: 'book_format',
};
const NUMBER_PROPERTIES: Record<string, string> = { wordCount: 'word_count', numberOfPages: 'number_of_pages' };
const DATE_PROPERTIES: Record<string, string> = {
  datePublished: 'date_published',
  dateModified: 'date_modified',
  dateCreated: 'date_created',
  startDate: 'start_date',
  endDate: 'end_date',
  foundingDate: 'founding_date',
  uploadDate: 'upload_date',
  doorTime: 'door_time',
  expires: 'expires',
};
interface Link {
  rel: string;
  predicate: string;
  type: string;
}
const LINK_PROPERTIES: Record<string, Link> = {
  author: { rel: 'authored_by', predicate: 'author', type: 'Person' },
  creator: { rel: 'authored_by', predicate: 'author', type: 'Person' },
  publisher: { rel: 'published_by', predicate: 'publisher', type: 'Organization' },
  brand: { rel: 'brand', predicate: 'brand', type: 'Brand' },
  manufacturer: { rel: 'manufactured_by', predicate: 'manufacturer', type: 'Organization' },
  organizer: { rel: 'organized_by', predicate: 'organizer', type: 'Organization' },
  performer: { rel: 'performed_by', predicate: 'performer', type: 'Person' },
  provider: { rel: 'provided_by', predicate: 'provider', type: 'Organization' },
  worksFor: { rel: 'works_for', predicate: 'works_for', type: 'Organization' },
  memberOf: { rel: 'member_of', predicate: 'member_of', type: 'Organization' },
  itemReviewed: { rel: 'reviews', predicate: 'item_reviewed', type: 'Thing' },
  location: { rel: 'located_at', predicate: 'location', type: 'Place' },
  hasPart: { rel: 'has_part', predicate: 'has_part', type: 'CreativeWork' },
  subEvent: { rel: 'has_sub_event', predicate: 'sub_event', type: 'Event' },
  subEvents: { rel: 'has_sub_event', predicate: 'sub_event', type: 'Event' },
  workPerformed: { rel: 'performs_work', predicate: 'work_performed', type: 'CreativeWork' },
  hasVariant: { rel: 'has_variant', predicate: 'variant', type: 'Product' },
  isVariantOf: { rel: 'variant_of', predicate: 'variant_of', type: 'ProductGroup' },
  track: { rel: 'has_track', predicate: 'track', type: 'MusicRecording' },
  tracks: { rel: 'has_track', predicate: 'track', type: 'MusicRecording' },
};
/** Parts that are read elsewhere (FAQ pairs) and make no entity of their own. */
const NOT_LINKED = new Set(['Question', 'Answer']);
/** url-valued properties, each one fact with all its urls. */
const URL_PROPERTIES: Record<string, string> = { url: 'url', image: 'image', logo: 'logo', sameAs: 'same_as' };
const CATEGORY_PROPERTIES = ['articleSection', 'category'];

const NO_SKIP: ReadonlySet<string> = new Set();

/** Most nested entities get their own facts, down to this depth below the item's entity. */
const MAX_DEPTH = 2;

/**
 * One fact of all the values (listValue): a single value stays plain, several become {"values": [...]}.
 * An ISO 8601 duration keeps its value and reads as a duration in display ("PT1H5M": "1 h 5 min").
 * `display`, when given, replaces the joined display of several values (an author line as written).
 */
function addListFact(
  ctx: SchemaContext,
  subject: EntityRef,
  subjectName: string,
  predicate: string,
  values: Array<string | number>,
  display?: string,
): void {
  const list = listValue(
    values,
    values.map((v) => (typeof v === 'string' ? durationDisplay(v) : undefined)),
  );
  if (list !== null)
    addFact(ctx, subject, subjectName, predicate, list.value, {
      display: typeof list.value === 'object' ? (display ?? list.display) : list.display,
    });
}

export function addFact(
  ctx: SchemaContext,
  subject: EntityRef,
  subjectName: string,
  predicate: string,
  value: string | number | Record<string, unknown>,
  extra: { currency?: string; display?: string; validFrom?: string; validUntil?: string; confidence?: number } = {},
): void {
  ctx.builder.addFact({
    subject,
    subjectName,
    predicate,
    value,
    provenance: ctx.provenance,
    confidence: extra.confidence ?? ctx.confidence,
    ...strip(extra),
  });
}

function strip<T extends Record<string, unknown>>(extra: T): Partial<T> {
  const out: Partial<T> = {};
  for (const key of Object.keys(extra) as Array<keyof T>)
    if (extra[key] !== undefined && key !== 'confidence') out[key] = extra[key];
  return out;
}

/**
 * Emits the facts a schema.org node states about its entity (subject). Names are not emitted
 * here: the entity carries its name, and the item's own title is chosen in title.ts.
 */
export function mapSchemaNode(
  node: SchemaNode,
  subject: EntityRef,
  subjectName: string,
  ctx: SchemaContext,
  depth: number,
  seen: Set<SchemaNode>,
  skip: ReadonlySet<string> = NO_SKIP,
): void {
  if (seen.has(node)) return;
  seen.add(node);
  let others = 0;
  // The images among a node's associatedMedia are its images too (one image fact with the image property's).
  const mediaImages = asList(node.associatedMedia)
    .map((m) => resolveRef(m, ctx.byId))
    .filter((m) => isObject(m) && typesOf(m).includes('ImageObject'));
  // A name of several values (one per language, say): the first names the entity, the others are alternate names.
  const moreNames = textValues(node.name).slice(1);
  if (moreNames.length > 0 && !skip.has('name'))
    addListFact(ctx, subject, subjectName, 'alternate_name', [...textValues(node.alternateName), ...moreNames]);
  for (const key of Object.keys(node).sort()) {
    if (skip.has(key) || (key === 'alternateName' && moreNames.length > 0)) continue;
    const value = node[key];
    // lookup(), not TABLE[key]: a JSON key such as "constructor" must not find Object's.
    const textPredicate = lookup(TEXT_PROPERTIES, key);
    const termPredicate = lookup(TERM_PROPERTIES, key);
    const numberPredicate = lookup(NUMBER_PROPERTIES, key);
    const datePredicate = lookup(DATE_PROPERTIES, key);
    const link = lookup(LINK_PROPERTIES, key);
    const urlPredicate = lookup(URL_PROPERTIES, key);
    if (textPredicate !== undefined) {
      addListFact(ctx, subject, subjectName, textPredicate, textValues(value));
    } else if (termPredicate !== undefined) {
      const text = textValue(value);
      if (text !== null) addFact(ctx, subject, subjectName, termPredicate, schemaTerm(text));
    } else if (numberPredicate !== undefined) {
      const amount = parseAmount(textValue(value));
      if (amount !== null) addFact(ctx, subject, subjectName, numberPredicate, amount);
    } else if (datePredicate !== undefined) {
      const text = textValue(value);
      const date = normalizeDateTime(text);
      if (date !== null) addFact(ctx, subject, subjectName, datePredicate, date.value, { display: date.display });
      // A date of reduced precision (a founding year "1998", "1998-05") is kept as written; other text that is no date is dropped.
      else if (text !== null && REDUCED_DATE.test(text)) addFact(ctx, subject, subjectName, datePredicate, text);
    } else if (link !== undefined) {
      mapLink(link, value, subject, subjectName, ctx, depth, seen);
    } else if (CATEGORY_PROPERTIES.includes(key)) {
      mapCategories(value, subject, subjectName, ctx);
    } else if (key === 'keywords') {
      addListFact(ctx, subject, subjectName, 'keywords', commaItems(asList(value).map((v) => textValue(v) ?? '')));
    } else if (urlPredicate !== undefined) {
      // An image or a logo given by reference ({"@id": ".../#primaryimage"}, as Yoast writes them) is the ImageObject's url, not the reference.
      const urls = key === 'image' || key === 'logo' ? asList(value).map((v) => resolveRef(v, ctx.byId)) : value;
      addListFact(
        ctx,
        subject,
        subjectName,
        urlPredicate,
        urlValues(key === 'image' ? [...asList(urls), ...mediaImages] : urls, ctx.baseUrl),
      );
    } else if (key === 'associatedMedia') {
      if (node.image === undefined)
        addListFact(ctx, subject, subjectName, 'image', urlValues(mediaImages, ctx.baseUrl));
    } else if (key === 'identifier') {
      // A PropertyValue identifier ({"propertyID": "isbn", "value": ...}) states its value in "value".
      addListFact(
        ctx,
        subject,
        subjectName,
        'identifier',
        asList(value).flatMap((v) => textValues(isObject(v) ? (v.value ?? v['@id']) : v)),
      );
    } else if (key === 'interactionStatistic') {
      mapInteractions(value, subject, subjectName, ctx);
    } else if (key === 'itemListElement' && !typesOf(node).includes('BreadcrumbList')) {
      mapListMembers(value, subject, subjectName, ctx, depth, seen);
    } else if (key === 'mainEntity') {
      for (const raw of asList(value)) {
        const list = resolveRef(raw, ctx.byId);
        if (isObject(list) && typesOf(list).includes('ItemList'))
          mapListMembers(list.itemListElement, subject, subjectName, ctx, depth, seen);
      }
    } else if (key === 'review' || key === 'reviews') {
      mapReviews(value, subject, subjectName, ctx, depth, seen);
    } else if (key === 'offers') {
      mapOffers(
        asList(value).map((offer) => resolveRef(offer, ctx.byId)),
        node,
        subject,
        subjectName,
        ctx,
        depth,
        seen,
      );
    } else if (key === 'aggregateRating' || key === 'reviewRating') {
      mapRating(resolveRef(asList(value)[0], ctx.byId), subject, subjectName, ctx, key === 'aggregateRating');
    } else if (key === 'address') {
      const address = addressValue(resolveRef(value, ctx.byId));
      if (address !== null) addFact(ctx, subject, subjectName, 'address', address);
    } else if (key === 'geo') {
      const geo = resolveRef(value, ctx.byId);
      if (isObject(geo)) {
        const latitude = parseAmount(textValue(geo.latitude));
        const longitude = parseAmount(textValue(geo.longitude));
        if (latitude !== null && longitude !== null)
          addFact(ctx, subject, subjectName, 'geo', { latitude, longitude }, { display: `${latitude}, ${longitude}` });
      }
    } else if (OTHER_PROPERTY.test(key) && !NOT_STATED.has(key) && others++ < OTHER_PROPERTIES_MAX) {
      mapOtherProperty(key, value, subject, subjectName, ctx, depth, seen);
    }
  }
  const hours = openingHours(node);
  if (hours !== null)
    addFact(
      ctx,
      subject,
      subjectName,
      'opening_hours',
      hours.value,
      hours.value === hours.display ? {} : { display: hours.display },
    );
}

function mapLink(
  link: Link,
  value: unknown,
  subject: EntityRef,
  subjectName: string,
  ctx: SchemaContext,
  depth: number,
  seen: Set<SchemaNode>,
): void {
  const names: string[] = [];
  const named = new Set<string>();
  // What the display shows of each given value: a line naming several people ("Jane Roe and John Doe") as the page writes it.
  const shown: string[] = [];
  let split = false;
  for (const given of asList(value)) {
    const people = link.type === 'Person' ? peopleOf(given) : [given];
    const before = names.length;
    for (const item of people) {
      const label = mapLinked(link, item, subject, ctx, depth, seen);
      if (label !== null && !named.has(label)) {
        named.add(label);
        names.push(label);
      }
    }
    if (people.length > 1 && names.length > before) {
      split = true;
      shown.push(cleanByline(given as string, 500)!);
    } else {
      shown.push(...names.slice(before));
    }
  }
  addListFact(ctx, subject, subjectName, link.predicate, names, split ? shown.join(', ') : undefined);
}

/** One linked thing: its entity, the relationship to it and what the node says of it; its label in the link's fact, or null when it names nothing. */
function mapLinked(
  link: Link,
  item: unknown,
  subject: EntityRef,
  ctx: SchemaContext,
  depth: number,
  seen: Set<SchemaNode>,
): string | null {
  const entity = resolveEntity(item, link.type, ctx);
  if (entity === null || NOT_LINKED.has(entity.ref.type)) return null;
  let label = entity.name;
  if (link.predicate === 'location' && entity.node !== null) {
    const address = addressValue(resolveRef(entity.node.address, ctx.byId));
    if (address !== null && address !== label) label = `${label}, ${address}`;
  }
  if (link.predicate === 'variant' && entity.node !== null) label = variantLabel(entity.name, entity.node);
  if (entity.ref !== ctx.siteRef) {
    ctx.builder.addEntity({
      ...entity.ref,
      name: entity.name,
      provenance: ctx.provenance,
      confidence: ctx.confidence,
      importance: 3,
    });
  }
  ctx.builder.addRelationship(subject, link.rel, entity.ref, ctx.provenance, ctx.confidence);
  if (entity.node !== null) {
    // A thing identified by its page (an itemid, an RDFa link) without a url property: that page is its url.
    const id = entity.node['@id'];
    if (
      entity.node.url === undefined &&
      typeof id === 'string' &&
      !id.includes('#') &&
      entity.ref !== ctx.siteRef &&
      urlKey(id) === entity.ref.canonicalKey
    ) {
      addFact(ctx, entity.ref, entity.name, 'url', id.trim());
    }
    if (depth < MAX_DEPTH) mapSchemaNode(entity.node, entity.ref, entity.name, ctx, depth + 1, seen);
  }
  return label;
}

/**
 * A person given as text is read as a byline is ("By Jane Roe" is Jane Roe), one value per person
 * it names ("Jane Roe and John Doe"); text that names nobody (a date, a url) is no one.
 */
function peopleOf(value: unknown): unknown[] {
  // Text too long for a name (a whole author card) is left to resolveEntity, which names no one by it.
  if (typeof value !== 'string' || !looksLikeName(value.trim())) return [value];
  const line = cleanByline(value, 500);
  return line === null ? [] : personNames(line);
}

const ISO_DURATION = /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/;
const DURATION_UNITS = ['y', 'mo', 'wk', 'd', 'h', 'min', 's'];

/** "PT1H5M" as "1 h 5 min"; undefined for text that is no ISO 8601 duration (or one of no length, "P", "PT"). */
function durationDisplay(text: string): string | undefined {
  const match = ISO_DURATION.exec(text);
  if (match === null) return undefined;
  const parts = DURATION_UNITS.flatMap((unit, i) =>
    match[i + 1] === undefined ? [] : [`${Number(match[i + 1])} ${unit}`],
  );
  return parts.length === 0 ? undefined : parts.join(' ');
}

/** An ISO 8601 date of reduced precision: a year, or a year and month. */
const REDUCED_DATE = /^\d{4}(?:-(?:0[1-9]|1[0-2]))?$/;
/** A schema.org property name (lowerCamelCase); prefixed or IRI keys (other vocabularies) are not read. */
const OTHER_PROPERTY = /^[a-z][A-Za-z0-9]{0,63}$/;
/**
 * Properties no fact is made of: the page's machinery (actions, breadcrumbs, its place in the
 * site), media plumbing, and the body text, which the chunks hold.
 */
const NOT_STATED = new Set([
  'name',
  'text',
  'articleBody',
  'potentialAction',
  'mainEntityOfPage',
  'isPartOf',
  'breadcrumb',
  'speakable',
  'primaryImageOfPage',
  'significantLink',
  'significantLinks',
  'relatedLink',
  'encoding',
  'encodingFormat',
  'thumbnail',
  'hasMap',
  'sdPublisher',
  'sdDatePublished',
  'sdLicense',
  'width',
  'height',
  'position',
  'contentUrl',
  'embedUrl',
  'thumbnailUrl',
  'caption',
  'exifData',
  'representativeOfPage',
  'acceptedAnswer',
  'suggestedAnswer',
  'itemListOrder',
  'numberOfItems',
  'mainContentOfPage',
  'accessMode',
  'accessibilityFeature',
  'cssSelector',
  'xpath',
  // Read by the rules after the properties' loop (openingHoursValue) or by the page (a BreadcrumbList's items).
  'openingHours',
  'openingHoursSpecification',
  'itemListElement',
]);
/** Properties of one node read by mapOtherProperty at most (in name order): a hostile node of ten thousand keys stays bounded. */
const OTHER_PROPERTIES_MAX = 100;
/** Values of one property read at most: a hostile page's list of ten thousand stays bounded. */
const OTHER_VALUES_MAX = 50;
/** Longer texts are body text (chunks hold it), not a fact's value. */
const OTHER_TEXT_MAX = 500;
/** A property whose name says it holds a date or a time (datePosted, validThrough, birthDate, ...). */
const DATE_LIKE = /date|time$|^valid|through$|^expires|posted|founded|birth|death|published|modified|created/i;

/**
 * A property no rule above names: what the page states is kept. Texts and numbers become one fact
 * named after the property (snake_case; several values: {"values": [...]}), a date-like property's
 * dates are normalised, a schema.org term keeps its name; a named thing becomes an entity linked by
 * a relationship of that name (mapLink); a quantity or amount is its value and unit; steps and
 * lists are their texts; a structured value without a name (NutritionInformation, ContactPoint,
 * ...) gives one fact per property, prefixed with the property's name ("contact_point_telephone").
 */
function mapOtherProperty(
  key: string,
  value: unknown,
  subject: EntityRef,
  subjectName: string,
  ctx: SchemaContext,
  depth: number,
  seen: Set<SchemaNode>,
): void {
  const predicate = toPredicate(key);
  // A predicate a rule makes (price, availability, author, ...) keeps that rule's form: a stray "price" beside the offers is not a second price.
  if (predicate === null || lookup(PREDICATES, predicate) !== undefined) return;
  const texts: string[] = [];
  const linked: unknown[] = [];
  /** The values of structured values' properties (several ContactPoints: one fact per property with the values of all). */
  const parts = new Map<string, string[]>();
  for (const raw of asList(value).slice(0, OTHER_VALUES_MAX)) {
    const item = resolveRef(raw, ctx.byId);
    if (!isObject(item) || item['@value'] !== undefined) {
      const text = scalarText(key, item);
      if (text !== null) texts.push(text);
      continue;
    }
    if (nodeName(item) !== null) {
      linked.push(item);
      continue;
    }
    const flat = structuredText(item, ctx);
    if (flat !== null) texts.push(flat);
    else if (depth < MAX_DEPTH) {
      for (const inner of Object.keys(item)
        .filter((k) => OTHER_PROPERTY.test(k) && !NOT_STATED.has(k))
        .sort()) {
        const innerPredicate = toPredicate(`${key}_${inner}`);
        if (innerPredicate === null || (!parts.has(innerPredicate) && parts.size >= OTHER_PROPERTIES_MAX)) continue;
        const values = asList(item[inner])
          .slice(0, OTHER_VALUES_MAX)
          .map((v) => scalarText(inner, resolveRef(v, ctx.byId)))
          .filter((t): t is string => t !== null);
        parts.set(innerPredicate, [...(parts.get(innerPredicate) ?? []), ...values]);
      }
    }
  }
  for (const [innerPredicate, values] of parts) addListFact(ctx, subject, subjectName, innerPredicate, values);
  if (linked.length > 0)
    mapLink({ rel: predicate, predicate, type: 'Thing' }, linked, subject, subjectName, ctx, depth, seen);
  if (texts.length === 0) return;
  if (!DATE_LIKE.test(key)) return addListFact(ctx, subject, subjectName, predicate, texts);
  // A date-like property's dates are normalised; a malformed or out-of-range ISO date is dropped, as a known date property's is.
  const values = texts.flatMap((text) => {
    const date = normalizeDateTime(text);
    if (date !== null) return [{ value: date.value, display: date.display }];
    return REDUCED_DATE.test(text) || !/^\d{4}-/.test(text) ? [{ value: text, display: durationDisplay(text) }] : [];
  });
  const list = listValue(
    values.map((v) => v.value),
    values.map((v) => v.display),
  );
  if (list !== null) addFact(ctx, subject, subjectName, predicate, list.value, { display: list.display });
}

/** A plain value's text: a schema.org term by its name ("InStock"), a boolean as true or false, none for long body text. */
function scalarText(key: string, value: unknown): string | null {
  if (typeof value === 'boolean') return String(value);
  const text = textValue(value);
  if (text === null || text.length > OTHER_TEXT_MAX) return null;
  return /^https?:\/\/schema\.org\/[A-Za-z]+$/.test(text) && key !== 'url' ? schemaTerm(text) : text;
}

/**
 * The text of a structured value that is one value: a quantity or amount ("42", "5 KGM", "30000-34000
 * EUR per YEAR"),
 * a step or list item by its text, a thing without a name by its address or url. Null for one that
 * holds several properties (NutritionInformation, ContactPoint).
 */
function structuredText(node: SchemaNode, ctx: SchemaContext): string | null {
  // A MonetaryAmount states its currency and holds its amount, and the amount's unit, in a QuantitativeValue.
  const inner = resolveRef(node.value, ctx.byId);
  const quantityNode = isObject(inner) && inner['@value'] === undefined ? inner : node;
  const amount = quantityNode === node ? textValue(inner) : textValue(quantityNode.value);
  const range = [textValue(quantityNode.minValue), textValue(quantityNode.maxValue)];
  const quantity =
    amount ?? (range[0] !== null || range[1] !== null ? range.filter((r) => r !== null).join('-') : null);
  if (quantity !== null) {
    const currency = textValue(node.currency) ?? textValue(quantityNode.currency);
    const unit = textValue(quantityNode.unitText) ?? textValue(quantityNode.unitCode);
    if (currency !== null) return unit === null ? `${quantity} ${currency}` : `${quantity} ${currency} per ${unit}`;
    return unit === null ? quantity : `${quantity} ${unit}`;
  }
  const step = textValue(node.text);
  if (step !== null && step.length <= OTHER_TEXT_MAX) return step;
  if (node.itemListElement !== undefined) {
    const items = asList(node.itemListElement)
      .map((i) => resolveRef(i, ctx.byId))
      .map((i) => (isObject(i) ? (textValue(i.text) ?? nodeName(i)) : textValue(i)))
      .filter((t): t is string => t !== null);
    return items.length > 0 ? items.join(' / ') : null;
  }
  return addressValue(node.address) ?? (typeof node.url === 'string' ? urlValue(node.url, ctx.baseUrl) : null);
}

/** Variants often share their group's name: "Tee (M, blue)" names one by what sets it apart (else its sku). */
function variantLabel(name: string, node: SchemaNode): string {
  const traits = ['size', 'color', 'pattern', 'material']
    .map((key) => textValue(asList(node[key])[0]))
    .filter((t): t is string => t !== null);
  if (traits.length === 0) {
    const sku = textValue(asList(node.sku)[0]);
    if (sku !== null) traits.push(sku);
  }
  return traits.length === 0 ? name : `${name} (${traits.join(', ')})`;
}

/**
 * The members of an ItemList (itemListElement): each ListItem's item, else the ListItem itself
 * when it names something, becomes an entity the subject `lists`, in position order (source
 * order when positions are missing); the subject gets one list_item fact naming them all.
 */
export function mapListMembers(
  value: unknown,
  subject: EntityRef,
  subjectName: string,
  ctx: SchemaContext,
  depth: number,
  seen: Set<SchemaNode>,
): void {
  const members = asList(value)
    .map((raw, index) => {
      const element = resolveRef(raw, ctx.byId);
      const position = isObject(element) ? parseAmount(textValue(element.position)) : null;
      const inner =
        isObject(element) && typesOf(element).includes('ListItem') && element.item !== undefined
          ? resolveRef(element.item, ctx.byId)
          : element;
      // A ListItem whose item is a bare url takes its name from the ListItem.
      const target =
        typeof inner === 'string' && isObject(element) ? { ...element, '@type': 'Thing', url: inner } : inner;
      return { target, position: position ?? Number.MAX_SAFE_INTEGER, index };
    })
    .sort((a, b) => a.position - b.position || a.index - b.index);
  const names = new Set<string>();
  for (const { target } of members) {
    const entity = resolveEntity(target, 'Thing', ctx);
    if (entity === null || entity.ref === ctx.siteRef) continue;
    ctx.builder.addEntity({
      ...entity.ref,
      name: entity.name,
      provenance: ctx.provenance,
      confidence: ctx.confidence,
      importance: 2,
    });
    ctx.builder.addRelationship(subject, 'lists', entity.ref, ctx.provenance, ctx.confidence);
    names.add(entity.name);
    if (entity.node !== null && depth < MAX_DEPTH)
      mapSchemaNode(entity.node, entity.ref, entity.name, ctx, depth + 1, seen);
  }
  addListFact(ctx, subject, subjectName, 'list_item', [...names]);
}

/** interactionStatistic: one count per interaction type ({"interactionType": "LikeAction", "userInteractionCount": 12} -> like_count). */
function mapInteractions(value: unknown, subject: EntityRef, subjectName: string, ctx: SchemaContext): void {
  for (const raw of asList(value)) {
    const stat = resolveRef(raw, ctx.byId);
    if (!isObject(stat)) continue;
    const count = parseAmount(textValue(stat.userInteractionCount));
    const typeValue = isObject(stat.interactionType)
      ? (typesOf(stat.interactionType)[0] ?? null)
      : textValue(stat.interactionType);
    if (count === null || typeValue === null) continue;
    const action = schemaTerm(typeValue)
      .replace(/Action$/, '')
      .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
      .toLowerCase();
    if (/^[a-z][a-z0-9_]*$/.test(action)) addFact(ctx, subject, subjectName, `${action}_count`, count);
  }
}

/**
 * Each review of the subject becomes a Review entity that `reviews` the subject, with its own
 * facts (rating, body, author). A review without a name is named by its author; one without
 * either is not an entity. Keyed by its url, else by name and the reviewed thing.
 */
export function mapReviews(
  value: unknown,
  subject: EntityRef,
  subjectName: string,
  ctx: SchemaContext,
  depth: number,
  seen: Set<SchemaNode>,
): void {
  const names = new Set<string>();
  for (const raw of asList(value)) {
    const node = resolveRef(raw, ctx.byId);
    if (!isObject(node)) continue;
    const author = resolveEntity(asList(node.author)[0], 'Person', ctx);
    const name =
      textValue(node.name) ?? textValue(node.headline) ?? (author === null ? null : `Review by ${author.name}`);
    if (name === null) continue;
    const url = urlValue(node.url, ctx.baseUrl);
    const ref: EntityRef = {
      type: typesOf(node)[0] ?? 'Review',
      canonicalKey: (url === null ? null : urlKey(url)) ?? nameKey(`${name} of ${subject.canonicalKey}`),
    };
    ctx.builder.addEntity({ ...ref, name, provenance: ctx.provenance, confidence: ctx.confidence, importance: 2 });
    ctx.builder.addRelationship(ref, 'reviews', subject, ctx.provenance, ctx.confidence);
    names.add(name);
    if (depth < MAX_DEPTH) mapSchemaNode(node, ref, name, ctx, depth + 1, seen, new Set(['itemReviewed']));
  }
  addListFact(ctx, subject, subjectName, 'review', [...names]);
}

function mapCategories(value: unknown, subject: EntityRef, subjectName: string, ctx: SchemaContext): void {
  const names = asList(value)
    .map((v) => textValue(isObject(v) ? v.name : v))
    .filter((v): v is string => v !== null);
  for (const name of names) addCategory(ctx.builder, subject, name, ctx.provenance, ctx.confidence);
  addListFact(ctx, subject, subjectName, 'category', names);
}

/** Categories and tags are DefinedTerm entities keyed "category/<name>" and "tag/<name>". */
export function addCategory(
  builder: ContributionBuilder,
  subject: EntityRef,
  name: string,
  provenance: ProvenanceMethod,
  confidence: number,
  kind: 'category' | 'tag' = 'category',
): void {
  const key = `${kind}/${name.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim()}`;
  const ref = builder.addEntity({
    type: 'DefinedTerm',
    canonicalKey: key,
    name,
    provenance,
    confidence,
    importance: 2,
    attributes: { termSet: kind },
  });
  builder.addRelationship(subject, kind === 'category' ? 'in_category' : 'tagged', ref, provenance, confidence);
}

type FactExtra = { currency?: string; display?: string; validFrom?: string; validUntil?: string };
type FactSink = (predicate: string, value: string | number, extra?: FactExtra) => void;

/**
 * Offers state each predicate once; one value (one offer, or several agreeing) is a plain fact
 * with its currency and validity. Several offers (sizes, sellers, editions) that differ give the values of all offers as one {"values"} fact in offer order, its display
 * joined with ", ", its currency when every price has the same one (docs/contract.md#fact-rules).
 */
function mapOffers(
  offers: unknown[],
  item: SchemaNode,
  subject: EntityRef,
  subjectName: string,
  ctx: SchemaContext,
  depth: number,
  seen: Set<SchemaNode>,
): void {
  const described = offers.filter(isObject);
  const collected = new Map<string, Array<{ value: string | number; extra: FactExtra }>>();
  const sink: FactSink = (predicate, value, extra = {}) => {
    const list = collected.get(predicate) ?? [];
    list.push({ value, extra });
    collected.set(predicate, list);
  };
  for (const offer of described) mapOffer(offer, subject, ctx, depth, seen, sink, item);
  for (const [predicate, entries] of collected) {
    const unique = entries.filter(
      (e, i) => entries.findIndex((o) => o.value === e.value && o.extra.currency === e.extra.currency) === i,
    );
    if (unique.length === 1) {
      addFact(ctx, subject, subjectName, predicate, unique[0]!.value, unique[0]!.extra);
      continue;
    }
    const currencies = new Set(unique.map((e) => e.extra.currency));
    const currency = currencies.size === 1 ? unique[0]!.extra.currency : undefined;
    const display = unique.map((e) => e.extra.display ?? String(e.value)).join(', ');
    addFact(ctx, subject, subjectName, predicate, { values: unique.map((e) => e.value) }, { currency, display });
  }
}

const OFFER_IDENTIFIERS = ['sku', 'gtin8', 'gtin12', 'gtin13', 'gtin14', 'gtin', 'mpn'];

/**
 * One offer's facts, through `sink`. An identifier the item states itself (its own sku, gtin,
 * mpn) keeps that name; an offer's other value of it is a variant's (Shopify's offer per size and
 * colour), `offer_sku`, so the item's own is not one candidate among its variants'.
 */
function mapOffer(
  offer: SchemaNode,
  subject: EntityRef,
  ctx: SchemaContext,
  depth: number,
  seen: Set<SchemaNode>,
  sink: FactSink,
  item: SchemaNode,
): void {
  const spec = isObject(offer.priceSpecification)
    ? offer.priceSpecification
    : Array.isArray(offer.priceSpecification) && isObject(offer.priceSpecification[0])
      ? offer.priceSpecification[0]
      : {};
  const currency = normalizeCurrency(textValue(offer.priceCurrency) ?? textValue(spec.priceCurrency));
  const amount = parseAmount(textValue(offer.price) ?? textValue(offer.lowPrice) ?? textValue(spec.price));
  const validFrom = normalizeDate(textValue(offer.validFrom)) ?? undefined;
  const until = normalizeDateTime(textValue(offer.priceValidUntil) ?? textValue(offer.validThrough));
  const validUntil = until?.value;
  if (amount !== null) {
    sink('price', amount, { currency, display: formatMoney(amount, currency), validFrom, validUntil });
  }
  const high = parseAmount(textValue(offer.highPrice));
  if (high !== null)
    sink('high_price', high, { currency, display: formatMoney(high, currency), validFrom, validUntil });
  if (until !== null) sink('price_valid_until', until.value, { display: until.display });
  const availability = textValue(offer.availability);
  if (availability !== null) sink('availability', schemaTerm(availability), { validFrom, validUntil });
  const condition = textValue(offer.itemCondition);
  if (condition !== null) sink('condition', schemaTerm(condition));
  const offerUrl = urlValue(offer.url, ctx.baseUrl);
  if (offerUrl !== null) sink('offer_url', offerUrl);
  const offerCount = parseAmount(textValue(offer.offerCount));
  if (offerCount !== null) sink('offer_count', offerCount);
  for (const key of OFFER_IDENTIFIERS) {
    const text = textValue(offer[key]);
    if (text === null) continue;
    const predicate = TEXT_PROPERTIES[key]!;
    // The item's own values of the predicate (gtin8 to gtin14 are all `gtin`).
    const own = OFFER_IDENTIFIERS.filter((k) => TEXT_PROPERTIES[k] === predicate).flatMap(
      (k) => textValue(item[k]) ?? [],
    );
    if (own.length === 0) sink(predicate, text);
    else if (!own.includes(text)) sink(`offer_${predicate}`, text);
  }
  const sellers: string[] = [];
  for (const raw of asList(offer.seller)) {
    const seller = resolveEntity(raw, 'Organization', ctx);
    if (seller === null) continue;
    sellers.push(seller.name);
    if (seller.ref !== ctx.siteRef)
      ctx.builder.addEntity({
        ...seller.ref,
        name: seller.name,
        provenance: ctx.provenance,
        confidence: ctx.confidence,
        importance: 3,
      });
    ctx.builder.addRelationship(subject, 'offered_by', seller.ref, ctx.provenance, ctx.confidence);
    if (seller.node !== null && depth < MAX_DEPTH)
      mapSchemaNode(seller.node, seller.ref, seller.name, ctx, depth + 1, seen);
  }
  for (const seller of sellers) sink('seller', seller);
}

function mapRating(
  rating: unknown,
  subject: EntityRef,
  subjectName: string,
  ctx: SchemaContext,
  aggregate: boolean,
): void {
  if (!isObject(rating)) return;
  const value = parseAmount(textValue(rating.ratingValue));
  const best = parseAmount(textValue(rating.bestRating));
  const worst = parseAmount(textValue(rating.worstRating));
  if (value !== null)
    addFact(ctx, subject, subjectName, 'rating_value', value, {
      display: best !== null ? `${value}/${best}` : undefined,
    });
  if (best !== null) addFact(ctx, subject, subjectName, 'best_rating', best);
  if (worst !== null) addFact(ctx, subject, subjectName, 'worst_rating', worst);
  if (aggregate) {
    const count = parseAmount(textValue(rating.reviewCount) ?? textValue(rating.ratingCount));
    if (count !== null) addFact(ctx, subject, subjectName, 'review_count', count);
  }
}

/** Question/answer pairs of FAQPage (mainEntity) and any Question node. */
export function readSchemaFaq(
  nodes: SchemaNode[],
  byId: Map<string, SchemaNode>,
): Array<{ question: string; answer: string }> {
  const out: Array<{ question: string; answer: string }> = [];
  const visit = (value: unknown, depth: number): void => {
    if (depth > 4) return;
    for (const raw of asList(value)) {
      const node = resolveRef(raw, byId);
      if (!isObject(node)) continue;
      if (typesOf(node).includes('Question')) {
        const question = textValue(node.name) ?? textValue(node.text);
        const answerNode = resolveRef(asList(node.acceptedAnswer)[0] ?? asList(node.suggestedAnswer)[0], byId);
        const answer = isObject(answerNode) ? textValue(answerNode.text) : textValue(answerNode);
        if (question !== null && answer !== null) out.push({ question, answer });
      } else {
        visit(node.mainEntity, depth + 1);
        if (typesOf(node).includes('FAQPage')) visit(node.hasPart, depth + 1);
      }
    }
  };
  visit(nodes, 0);
  return out;
}

const NEVER_MAIN = new Set([
  'WebSite',
  'BreadcrumbList',
  'SiteNavigationElement',
  'ListItem',
  'SearchAction',
  'ReadAction',
  'WPHeader',
  'WPFooter',
  'WPSideBar',
  'ItemList',
  'Brand',
  'Offer',
  'AggregateRating',
  'Rating',
  'PostalAddress',
  'GeoCoordinates',
  'EntryPoint',
]);
const PROFILE_TYPES = new Set([
  'Organization',
  'Corporation',
  'NewsMediaOrganization',
  'Person',
  'EducationalOrganization',
  'NGO',
]);
const MEDIA_TYPES = new Set(['ImageObject', 'VideoObject', 'AudioObject', 'MediaObject']);
const ARTICLE = /Article$|BlogPosting|Report|SocialMediaPosting|LiveBlogPosting|DiscussionForumPosting|APIReference/;
const PAGE = /Page$/;

/** Whether a node is a page (WebPage, ProfilePage, FAQPage, ...) rather than the thing a page describes. */
export function isPageNode(node: SchemaNode): boolean {
  return typesOf(node).some((type) => PAGE.test(type));
}

/**
 * A page node whose mainEntity is one described thing is a page about that thing: the thing
 * describes the item (docs/extraction.md "mainEntity"). A list of questions (FAQPage) or an
 * ItemList is not followed: the page stays the item and lists them.
 */
export function followMainEntity(main: SchemaNode | null, byId: Map<string, SchemaNode>): SchemaNode | null {
  if (main === null || !isPageNode(main) || Array.isArray(main.mainEntity)) return main;
  const target = resolveRef(main.mainEntity, byId);
  if (!isObject(target)) return main;
  const types = typesOf(target);
  if (types.length === 0 || types.some((t) => NEVER_MAIN.has(t) || t === 'Question')) return main;
  return target;
}

/** Which node describes the item itself: url match, then the expected type, then document order. */
export function pickMainNode(
  nodes: SchemaNode[],
  itemUrls: string[],
  itemType: string,
  expectedType: string,
  baseUrl: string,
): SchemaNode | null {
  let best: SchemaNode | null = null;
  let bestScore = -1;
  for (const node of nodes) {
    const types = typesOf(node);
    if (types.length === 0 || types.some((t) => NEVER_MAIN.has(t))) continue;
    if (itemType !== 'profile' && types.every((t) => PROFILE_TYPES.has(t))) continue;
    if (itemType !== 'media' && types.every((t) => MEDIA_TYPES.has(t))) continue;
    let score = 0;
    const url = urlValue(node.url ?? node['@id'], baseUrl);
    const key = url === null ? null : urlKey(url);
    if (key !== null && itemUrls.includes(key)) score += 4;
    const mainOf = resolveRef(node.mainEntityOfPage, new Map());
    const mainUrl = urlValue(isObject(mainOf) ? (mainOf['@id'] ?? mainOf.url) : mainOf, baseUrl);
    if (mainUrl !== null && itemUrls.includes(urlKey(mainUrl) ?? '')) score += 3;
    if (types.includes(expectedType)) score += 2;
    if (types.some((t) => ARTICLE.test(t)) && (itemType === 'page' || itemType === 'post' || itemType === 'doc'))
      score += 2;
    if (types.some((t) => PAGE.test(t)) && expectedType !== 'WebPage') score -= 1;
    if (score > bestScore) {
      best = node;
      bestScore = score;
    }
  }
  return best;
}

export { nodeName };
