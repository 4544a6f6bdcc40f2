import type { EntityRef } from './contribution.js';
import type { ProvenanceMethod } from './contribution.js';
import type { FieldMapping, IngestItem } from '../../platform/contract/ingest-item.js';
import type { ContributionBuilder } from './contribution-builder.js';
import { isObject } from './json-ld.js';
import {
  absoluteUrl,
  formatMoney,
  nameKey,
  normalizeCurrency,
  normalizeDate,
  normalizeDateTime,
  normalizeLanguage,
  parseAmount,
  urlKey,
} from './normalize.js';
import { BASE_CONFIDENCE, PREDICATES, SOURCE_CONFIDENCE } from './predicates.js';
import { commaItems, listValue } from './multi-value.js';
import { lookup, toPredicate } from './record-values.js';
import { addCategory } from './schema-org.js';
import { asList, textValue } from './schema-values.js';

/** What the website's FieldMappings resolve to for one item. */
export interface MappedFields {
  titles: Array<{ value: string; provenance: ProvenanceMethod }>;
  texts: string[];
  language: string | null;
  canonicalUrl: string | null;
  updatedAt: string | null;
  attributes: Array<{ predicate: string; value: string | number | boolean; provenance: ProvenanceMethod }>;
  /** Why a mapping was not applied (an attribute_name with no predicate form). */
  warnings: string[];
}

/** A dotted path into the item ("json.fields.price", "attributes.color", "json.images.0.url"). */
export function readPath(item: IngestItem, path: string): unknown {
  let value: unknown = item;
  for (const part of path.split('.')) {
    if (Array.isArray(value) && /^\d+$/.test(part)) value = value[Number(part)];
    else if (isObject(value)) value = value[part];
    else return undefined;
  }
  return value;
}

function scalar(value: unknown): string | number | boolean | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'boolean') return value;
  return textValue(value);
}

/** Mappings in a fixed order (by source path, then target) so their order in the request never matters. */
export function resolveMappings(item: IngestItem, mappings: FieldMapping[]): MappedFields {
  const out: MappedFields = {
    titles: [],
    texts: [],
    language: null,
    canonicalUrl: null,
    updatedAt: null,
    attributes: [],
    warnings: [],
  };
  const sorted = [...mappings].sort((a, b) =>
    a.source_path + '\u001f' + a.target < b.source_path + '\u001f' + b.target ? -1 : 1,
  );
  for (const mapping of sorted) {
    const raw = readPath(item, mapping.source_path);
    if (raw === undefined || raw === null) continue;
    const provenance = mapping.provenance_method;
    switch (mapping.target) {
      case 'title': {
        const text = textValue(raw);
        if (text !== null) out.titles.push({ value: text, provenance });
        break;
      }
      case 'text':
        if (typeof raw === 'string' && raw.trim() !== '') out.texts.push(raw);
        break;
      case 'language':
        out.language ??= normalizeLanguage(typeof raw === 'string' ? raw : null);
        break;
      case 'canonical_url':
        out.canonicalUrl ??= typeof raw === 'string' ? absoluteUrl(raw, item.url) : null;
        break;
      case 'updated_at':
        out.updatedAt ??= normalizeDate(typeof raw === 'string' ? raw : null);
        break;
      case 'attribute': {
        const value = scalar(raw);
        const predicate = toPredicate(mapping.attribute_name ?? '');
        if (predicate === null)
          out.warnings.push(
            `predicate.dropped: mapping ${JSON.stringify(mapping.source_path)} skipped, attribute_name ${JSON.stringify(mapping.attribute_name ?? '')} has no snake_case predicate form`,
          );
        else if (value !== null) out.attributes.push({ predicate, value, provenance });
        break;
      }
    }
  }
  return out;
}

export interface CmsContext {
  builder: ContributionBuilder;
  item: IngestItem;
  subject: EntityRef;
  subjectName: () => string;
}

const C: number = SOURCE_CONFIDENCE.cmsField;

/**
 * Facts from the item's own fields and the canonical json sub-schemas (images[], seo{},
 * author{}, tags[], categories[], price{}). Other json and attributes keys become facts only
 * when they name a known predicate (PREDICATES); anything else needs a FieldMapping.
 */
export function addCmsFacts(ctx: CmsContext, mapped: MappedFields): { authors: EntityRef[] } {
  const { builder, item, subject } = ctx;
  const fact = (
    predicate: string,
    value: string | number | boolean | Record<string, unknown>,
    extra: Record<string, string | undefined> = {},
    provenance: ProvenanceMethod = 'cms_field',
    confidence = C,
  ): void => {
    const clean: Record<string, string> = {};
    for (const [k, v] of Object.entries(extra)) if (v !== undefined) clean[k] = v;
    builder.addFact({ subject, subjectName: ctx.subjectName(), predicate, value, provenance, confidence, ...clean });
  };
  /** A field of several values is one fact of {"values": [...]} (listValue), as in structured data. */
  const listFact = (predicate: string, values: readonly string[]): void => {
    const list = listValue(values);
    if (list !== null) fact(predicate, list.value, { display: list.display });
  };
  if (item.canonical_url !== undefined) fact('canonical_url', item.canonical_url);
  if (item.updated_at !== undefined) {
    const modified = normalizeDateTime(item.updated_at);
    fact('date_modified', modified?.value ?? item.updated_at, { display: modified?.display });
  }
  for (const attribute of mapped.attributes)
    fact(attribute.predicate, attribute.value, {}, attribute.provenance, BASE_CONFIDENCE[attribute.provenance]);

  const bags: Array<Record<string, unknown>> = [];
  if (item.attributes !== undefined) bags.push(item.attributes);
  if (item.json !== undefined) bags.push(item.json);
  for (const bag of bags) {
    for (const key of Object.keys(bag).sort()) {
      const predicate = toPredicate(key);
      if (
        predicate === null ||
        lookup(PREDICATES, predicate) === undefined ||
        ['price', 'author', 'brand', 'image', 'category'].includes(predicate)
      )
        continue;
      const value = scalar(bag[key]);
      if (value === null) continue;
      const date =
        predicate.startsWith('date_') || predicate.endsWith('_date') ? normalizeDateTime(String(value)) : null;
      fact(predicate, date?.value ?? value, { display: date?.display }, 'cms_field', C - 0.01);
    }
  }

  const authors: EntityRef[] = [];
  const json = item.json ?? {};
  const seo = isObject(json.seo) ? json.seo : {};
  const seoDescription = textValue(seo.description);
  if (seoDescription !== null) fact('description', seoDescription);
  const description = textValue(json.description) ?? textValue(json.summary) ?? textValue(json.excerpt);
  if (description !== null) fact('description', description, {}, 'cms_field', C - 0.02);
  listFact(
    'keywords',
    commaItems(
      asList(seo.keywords)
        .map(textValue)
        .filter((k): k is string => k !== null),
    ),
  );

  for (const image of asList(json.images).slice(0, 1)) {
    const src = isObject(image) ? (image.url ?? image.src) : image;
    const url = typeof src === 'string' ? absoluteUrl(src, item.url) : null;
    if (url !== null) fact('image', url);
  }
  const authorNames: string[] = [];
  for (const raw of asList(json.author)) {
    const name = isObject(raw) ? textValue(raw.name) : textValue(raw);
    if (name === null) continue;
    authorNames.push(name);
    // An author with a url (their profile page) is keyed by it, as a schema.org author is (docs/contract.md#entity-identity).
    const url = isObject(raw) && typeof raw.url === 'string' ? absoluteUrl(raw.url, item.url) : null;
    const canonicalKey = (url === null ? null : urlKey(url)) ?? nameKey(name);
    const ref = builder.addEntity({
      type: 'Person',
      canonicalKey,
      name,
      provenance: 'cms_field',
      confidence: C,
      importance: 3,
    });
    builder.addRelationship(subject, 'authored_by', ref, 'cms_field', C);
    authors.push(ref);
  }
  listFact('author', authorNames);
  const brand = isObject(json.brand) ? textValue(json.brand.name) : textValue(json.brand);
  if (brand !== null) {
    const ref = builder.addEntity({
      type: 'Brand',
      canonicalKey: nameKey(brand),
      name: brand,
      provenance: 'cms_field',
      confidence: C,
      importance: 3,
    });
    builder.addRelationship(subject, 'brand', ref, 'cms_field', C);
    fact('brand', brand);
  }
  for (const [field, kind] of [
    ['categories', 'category'],
    ['tags', 'tag'],
  ] as const) {
    const names = asList(json[field])
      .map((v) => (isObject(v) ? textValue(v.name) : textValue(v)))
      .filter((v): v is string => v !== null);
    for (const name of names) addCategory(builder, subject, name, 'cms_field', C, kind);
    listFact(kind, names);
  }
  if (isObject(json.price)) {
    const p = json.price;
    const amount = parseAmount(p.amount ?? p.value ?? p.price);
    const currency = normalizeCurrency(p.currency);
    if (amount !== null) {
      fact('price', amount, {
        currency,
        display: formatMoney(amount, currency),
        validFrom: normalizeDate(p.valid_from ?? p.validFrom) ?? undefined,
        validUntil: normalizeDate(p.valid_until ?? p.validUntil) ?? undefined,
      });
    }
    const availability = textValue(p.availability);
    if (availability !== null) fact('availability', availability);
  }
  return { authors };
}
