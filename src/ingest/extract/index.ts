import type { EntityRef, ItemContribution } from './contribution.js';
import type { FieldMapping, IngestItem } from '../../platform/contract/ingest-item.js';
import type { WebsiteInfo } from '../../control/records/website-info.js';
import { buildChunks } from './chunks.js';
import { addCmsFacts, resolveMappings } from './cms-fields.js';
import { ContributionBuilder, quoted } from './contribution-builder.js';
import { itemEntityType } from './entity-type.js';
import { addHtmlFacts, readStructuredData, type TitleCandidate } from './html-facts.js';
import { ogTypeHint } from './meta-facts.js';
import { scanHtml } from './html-document.js';
import { readTextBlocks, readTextLead, type Block } from './main-content.js';
import { absoluteUrl, cleanText, nameKey, normalizeDate, normalizeLanguage, urlKey } from './normalize.js';
import { SOURCE_CONFIDENCE } from './predicates.js';
import { PROVENANCE_RANK } from '../../platform/contract/provenance.js';
import { templateQa } from './qa.js';
import { websiteHosts, toHttpUrl } from './record-values.js';
import { typesOf } from './schema-values.js';

export { estimateTokens, MAX_CHUNK_TOKENS } from './chunks.js';
export { PREDICATES, BASE_CONFIDENCE, SOURCE_CONFIDENCE } from './predicates.js';

export interface ExtractOptions {
  /** RFC 3339 UTC time the item was received; lastSeenAt when the item has no updated_at. */
  receivedAt: string;
  /** The website's FieldMappings (POST /v1/ingest/schema); none by default. */
  mappings?: FieldMapping[];
}

function contentTypeOf(item: IngestItem): string {
  if (item.html !== undefined) return 'text/html';
  if (item.text !== undefined) return 'text/plain';
  return 'application/json';
}

/**
 * The contribution of one accepted item to its website's graph. Pure: no database, network,
 * clock or randomness; the same arguments give a deep-equal result. Bad HTML or JSON-LD never
 * throws: what cannot be read is skipped and reported in `warnings`.
 */
export function extractItem(item: IngestItem, site: WebsiteInfo, options: ExtractOptions): ItemContribution {
  const mapped = resolveMappings(item, options.mappings ?? []);
  const scan = item.html !== undefined ? scanHtml(item.html) : null;
  const language =
    normalizeLanguage(item.language) ??
    mapped.language ??
    normalizeLanguage(scan?.htmlLang) ??
    normalizeLanguage(scan?.contentLanguage) ??
    normalizeLanguage(site.defaultLanguage) ??
    'en';
  const builder = new ContributionBuilder(language, websiteHosts(site));

  for (const warning of mapped.warnings) builder.warnings.push(warning);

  // The source's urls as node records accept them (toHttpUrl); a canonical url that has no such
  // form is dropped and the item's own url stands in.
  const sourceUrl = toHttpUrl(item.url);
  if (sourceUrl === null)
    throw new Error(
      `item url ${quoted(item.url)} has no form a node record accepts (an absolute http(s) url of at most 4,096 characters once encoded)`,
    );
  const declaredCanonical = item.canonical_url ?? mapped.canonicalUrl ?? null;
  const canonicalUrl = declaredCanonical === null ? null : toHttpUrl(declaredCanonical);
  if (declaredCanonical !== null && canonicalUrl === null)
    builder.warnings.push(
      `url.dropped: canonical_url ${quoted(declaredCanonical)} is not an absolute http(s) url a node record accepts`,
    );
  const primaryUrl = canonicalUrl ?? item.url;
  const siteRef: EntityRef = { type: 'Organization', canonicalKey: site.domain.toLowerCase() };
  const itemUrls = [urlKey(item.url), canonicalUrl === null ? null : urlKey(canonicalUrl)].filter(
    (u): u is string => u !== null,
  );
  const baseUrl = scan?.baseHref != null ? (absoluteUrl(scan.baseHref, item.url) ?? item.url) : item.url;
  if (scan?.canonicalHref != null) {
    const htmlCanonical = absoluteUrl(scan.canonicalHref, baseUrl);
    if (htmlCanonical !== null && urlKey(htmlCanonical) !== null) itemUrls.push(urlKey(htmlCanonical)!);
  }

  const titles: TitleCandidate[] = [];
  const alternateNames: TitleCandidate[] = [];
  if (item.title !== undefined && cleanText(item.title) !== '')
    titles.push({ value: cleanText(item.title), provenance: 'cms_field', confidence: SOURCE_CONFIDENCE.cmsField });
  for (const t of mapped.titles)
    titles.push({ value: t.value, provenance: t.provenance, confidence: SOURCE_CONFIDENCE.cmsMapping - 0.01 });
  const seo = item.json?.seo;
  if (typeof seo === 'object' && seo !== null && typeof (seo as Record<string, unknown>).title === 'string') {
    const value = cleanText((seo as Record<string, string>).title!);
    if (value !== '') titles.push({ value, provenance: 'cms_field', confidence: SOURCE_CONFIDENCE.cmsField - 0.05 });
  }

  const expectedType = itemEntityType(item.type, item.json, item.attributes);
  const data =
    scan === null
      ? null
      : readStructuredData(scan, builder.warnings, itemUrls, item.type, expectedType, baseUrl, item.html);
  // A schema.org @type in the item's own JSON-LD (else microdata) wins over the item type's default.
  const mainNode = data?.mainJsonLd ?? data?.mainMicrodata ?? data?.mainRdfa ?? data?.mainMicroformats ?? null;
  // Else og:type, when the item type names only a generic page or thing.
  const ogType =
    data !== null && (expectedType === 'WebPage' || expectedType === 'Thing') ? ogTypeHint(data.meta) : undefined;
  const primaryType = (mainNode === null ? undefined : typesOf(mainNode)[0]) ?? ogType ?? expectedType;
  const primary: EntityRef = { type: primaryType, canonicalKey: urlKey(primaryUrl) ?? primaryUrl };
  let name = '';
  const subjectName = (): string => name;

  let blocks: Block[] = [];
  const extraQaEntities: EntityRef[] = [];
  if (scan !== null && data !== null) {
    blocks = addHtmlFacts({
      scan,
      data,
      builder,
      item,
      site,
      siteRef,
      primary,
      baseUrl,
      subjectName,
      titles,
      alternateNames,
    });
  }
  const cms = addCmsFacts({ builder, item, subject: primary, subjectName }, mapped);
  for (const author of cms.authors) extraQaEntities.push(author);
  // Plain text without html: its first line is a title and its first paragraph a description, as a page's <h1> and first <p>.
  const plainText = item.html === undefined ? (item.text ?? mapped.texts[0]) : undefined;
  if (plainText !== undefined) {
    const lead = readTextLead(plainText);
    if (lead.title !== null)
      titles.push({ value: lead.title, provenance: 'text_extraction', confidence: SOURCE_CONFIDENCE.bylineElement });
    if (lead.description !== null && builder.bestFact(primary, 'description') === undefined) {
      builder.addFact({
        subject: primary,
        subjectName: subjectName(),
        predicate: 'description',
        value: lead.description,
        provenance: 'text_extraction',
        confidence: SOURCE_CONFIDENCE.firstParagraph,
      });
    }
  }
  if (item.text !== undefined) blocks = [...blocks, ...readTextBlocks(item.text)];
  for (const text of mapped.texts) blocks = [...blocks, ...readTextBlocks(text)];

  // The item's name: the best title candidate by the survivor rule, else the url.
  titles.sort((a, b) => PROVENANCE_RANK[a.provenance] - PROVENANCE_RANK[b.provenance] || b.confidence - a.confidence);
  name = titles[0]?.value ?? primaryUrl;
  for (const t of titles)
    builder.addFact({
      subject: primary,
      subjectName: name,
      predicate: 'name',
      value: t.value,
      provenance: t.provenance,
      confidence: t.confidence,
    });
  // What structured markup calls the item, where the head named it otherwise: kept as an alternate name.
  const named = new Set(titles.map((t) => nameKey(t.value)));
  for (const t of alternateNames)
    if (!named.has(nameKey(t.value)))
      builder.addFact({
        subject: primary,
        subjectName: name,
        predicate: 'alternate_name',
        value: t.value,
        provenance: t.provenance,
        confidence: t.confidence,
      });
  builder.renameSubject(primary, name);

  const description = builder.bestFact(primary, 'description');
  const nameSource = titles[0] ?? { provenance: 'cms_field' as const, confidence: SOURCE_CONFIDENCE.cmsField };
  const attributes: Record<string, unknown> = { url: item.url, itemType: item.type };
  // Several descriptions are one {"values"} fact; the attribute is its joined display.
  if (description !== undefined)
    attributes.description =
      typeof description.value === 'object'
        ? (description.display ?? JSON.stringify(description.value))
        : description.value;
  builder.addEntity({
    ...primary,
    name,
    provenance: nameSource.provenance,
    confidence: nameSource.confidence,
    importance: 5,
    attributes,
  });
  builder.addEntity({
    ...siteRef,
    name: site.brand,
    provenance: 'cms_field',
    confidence: SOURCE_CONFIDENCE.cmsField,
    importance: 4,
    attributes: { url: `https://${site.domain}/` },
  });
  builder.addRelationship(primary, 'part_of', siteRef, 'cms_field', SOURCE_CONFIDENCE.cmsField);

  const moved = builder.mergeNamedAliases([primary, siteRef]);
  const chunks = buildChunks(blocks, language, builder.entityNames());
  for (const qa of templateQa(
    name,
    primary,
    (predicate) => builder.bestFact(primary, predicate),
    language,
    extraQaEntities.map(moved),
  ))
    builder.qa.push(qa);

  const updatedAt = normalizeDate(item.updated_at) ?? mapped.updatedAt;
  return {
    itemKey: `${item.type}:${item.id}`,
    primaryEntity: builder.typedRef(primary),
    language,
    source: {
      url: sourceUrl,
      canonicalUrl,
      title: name === primaryUrl ? null : name,
      contentType: contentTypeOf(item),
      checksum: item.checksum,
      language,
      lastSeenAt: updatedAt !== null && updatedAt.includes('T') ? updatedAt : options.receivedAt,
    },
    entities: builder.buildEntities([primary, siteRef]),
    facts: builder.allFacts(),
    relationships: builder.buildRelationships(),
    chunks,
    qa: builder.buildQa(),
    warnings: builder.buildWarnings(),
  };
}
