import type { EntityRef, ProvenanceMethod } from './contribution.js';
import type { IngestItem } from '../../platform/contract/ingest-item.js';
import type { WebsiteInfo } from '../../control/records/website-info.js';
import type { ContributionBuilder } from './contribution-builder.js';
import { isHidden, textOf, type HtmlScan } from './html-document.js';
import { breadcrumbTrail } from './breadcrumbs.js';
import { bylineAfterTitle, bylineDates, bylineFromAuthorLinks, bylineLinks } from './byline.js';
import { indexNodes, isObject, readJsonLd, readMicrodata, type SchemaNode } from './json-ld.js';
import { chooseContentRoot, firstParagraph, readBlocks, type Block } from './main-content.js';
import {
  cleanDocumentTitle,
  metaCandidates,
  readMetaValues,
  textSimilarity,
  type MetaPredicate,
  type MetaValues,
} from './meta.js';
import { commaItems, listValue, type ListValue } from './multi-value.js';
import { personNames } from './person-names.js';
import {
  absoluteUrl,
  cleanText,
  formatMoney,
  nameKey,
  normalizeCurrency,
  normalizeDateTime,
  normalizeLanguage,
  parseAmount,
  unescapeHtml,
  urlKey,
} from './normalize.js';
import { SOURCE_CONFIDENCE as C } from './predicates.js';
import { addMetaFacts } from './meta-facts.js';
import {
  hostOf,
  siteNameFromCopyright,
  siteNameFromHomeLink,
  siteNameFromHomePage,
  siteNameFromHostTitle,
  siteNameFromLogo,
  siteNameFromTitle,
} from './site-name.js';
import { readMicroformats } from './microformats.js';
import { readRdfa } from './rdfa.js';
import {
  followMainEntity,
  isPageNode,
  mapListMembers,
  mapReviews,
  mapSchemaNode,
  pickMainNode,
  readSchemaFaq,
  type SchemaContext,
} from './schema-org.js';
import {
  asList,
  identityUrl,
  nodeName,
  personName,
  personPage,
  resolveEntity,
  sharedIdentityUrls,
  textValue,
  typesOf,
  urlValue,
} from './schema-values.js';
import { typeFamily } from './identity.js';
import { readDefinitionLists, readDetails, readKeyValueTables, readQuestionHeadings } from './structured-text.js';

/** One candidate for the item's title and where it came from; the most trusted one wins. */
export interface TitleCandidate {
  value: string;
  provenance: ProvenanceMethod;
  confidence: number;
}

export interface StructuredData {
  jsonLd: SchemaNode[];
  jsonLdById: Map<string, SchemaNode>;
  microdata: SchemaNode[];
  microdataById: Map<string, SchemaNode>;
  mainJsonLd: SchemaNode | null;
  mainMicrodata: SchemaNode | null;
  /** microformats2 items as schema nodes (readMicroformats) and the one describing the item. */
  microformats: SchemaNode[];
  mainMicroformats: SchemaNode | null;
  /** RDFa (readRdfa) with its @id index, and the node describing the item. */
  rdfa: SchemaNode[];
  rdfaById: Map<string, SchemaNode>;
  mainRdfa: SchemaNode | null;
  /** The page nodes whose mainEntity became the main node (followMainEntity); not mapped on their own. */
  mainPages: Set<SchemaNode>;
  /** Head metadata (readMetaValues), read once. */
  meta: MetaValues;
}

/** JSON-LD and microdata of the page, and which node of each describes the item itself. */
export function readStructuredData(
  scan: HtmlScan,
  warnings: string[],
  itemUrls: string[],
  itemType: string,
  expectedType: string,
  baseUrl: string,
  html = '',
): StructuredData {
  const ld = readJsonLd(scan.jsonLd, warnings);
  const microdata = readMicrodata(scan.microdataRoots, scan.document);
  const microdataById = indexNodes(microdata);
  const microformats = scan.hasMicroformats ? readMicroformats(html, baseUrl) : [];
  const rdfa = scan.hasRdfa ? readRdfa(scan.document, baseUrl) : [];
  const rdfaById = indexNodes(rdfa);
  const mainPages = new Set<SchemaNode>();
  const follow = (page: SchemaNode | null, byId: Map<string, SchemaNode>): SchemaNode | null => {
    const main = followMainEntity(page, byId);
    if (page !== null && main !== page) mainPages.add(page);
    return main;
  };
  return {
    jsonLd: ld.nodes,
    jsonLdById: ld.byId,
    microdata,
    microdataById,
    mainPages,
    meta: readMetaValues(scan.metas, scan.prefixes),
    mainJsonLd: follow(pickMainNode(ld.nodes, itemUrls, itemType, expectedType, baseUrl), ld.byId),
    mainMicrodata: follow(pickMainNode(microdata, itemUrls, itemType, expectedType, baseUrl), microdataById),
    rdfa,
    rdfaById,
    mainRdfa: follow(pickMainNode(rdfa, itemUrls, itemType, expectedType, baseUrl), rdfaById),
    microformats,
    mainMicroformats: pickMainNode(microformats, itemUrls, itemType, expectedType, baseUrl),
  };
}

export interface HtmlFactsInput {
  scan: HtmlScan;
  data: StructuredData;
  builder: ContributionBuilder;
  item: IngestItem;
  site: WebsiteInfo;
  siteRef: EntityRef;
  primary: EntityRef;
  baseUrl: string;
  subjectName: () => string;
  titles: TitleCandidate[];
  /** Names microdata, RDFa or microformats give the item where the head already names it: alternate names unless a title candidate says the same. */
  alternateNames: TitleCandidate[];
}

const OTHER_SKIPPED = new Set([
  'WebSite',
  'WebPage',
  'BreadcrumbList',
  'SiteNavigationElement',
  'ListItem',
  'ItemList',
  'SearchAction',
  'ReadAction',
  'ImageObject',
  'WPHeader',
  'WPFooter',
  'WPSideBar',
  'FAQPage',
  'Question',
  'Answer',
]);

const EMPTY_INDEX: Map<string, SchemaNode> = new Map();

/** Everything an HTML page says: schema.org, head metadata, and the main text with its structures. Returns the main text blocks. */
export function addHtmlFacts(input: HtmlFactsInput): Block[] {
  const { scan, data, builder, primary, siteRef, titles } = input;
  const name = input.subjectName;
  const rawTitle = scan.title === null ? null : cleanText(unescapeHtml(scan.title));
  const cleanTitle = cleanDocumentTitle(
    scan.title === null ? null : unescapeHtml(scan.title),
    scan.headingTexts,
    scan.h1Texts,
  );

  mapStructured(input, data.jsonLd, data.jsonLdById, data.mainJsonLd, 'jsonLd', cleanTitle);

  const meta = data.meta;
  const fact = (
    subject: EntityRef,
    predicate: string,
    value: ListValue['value'],
    confidence: number,
    provenance: 'seo_meta' | 'text_extraction' = 'seo_meta',
    extra: { currency?: string; display?: string } = {},
  ): void => {
    builder.addFact({
      subject,
      subjectName: subject === siteRef ? input.site.brand : name(),
      predicate,
      value,
      provenance,
      confidence,
      ...extra,
    });
  };
  for (const c of metaCandidates(meta, 'name'))
    titles.push({ value: c.value, provenance: 'seo_meta', confidence: c.confidence });
  if (cleanTitle !== null) titles.push({ value: cleanTitle, provenance: 'seo_meta', confidence: C.titleHeuristic });
  if (rawTitle !== null && rawTitle !== '') fact(primary, 'html_title', rawTitle, C.htmlTitle);
  if (scan.h1Texts.length === 1 && cleanText(scan.h1Texts[0]!) !== '')
    titles.push({ value: cleanText(scan.h1Texts[0]!), provenance: 'text_extraction', confidence: C.bylineElement });
  // Else, when nothing names the page, the first of several <h1>s shown outside boilerplate (a
  // page with an empty <title> was named by its url).
  else if (titles.length === 0 && scan.firstH1 !== null && cleanText(textOf(scan.firstH1)) !== '')
    titles.push({ value: cleanText(textOf(scan.firstH1)), provenance: 'text_extraction', confidence: C.firstHeading });

  /** Several values are one fact of {"values": [...]} (listValue); `display`, when given, replaces their joined display. */
  const listFact = (
    predicate: string,
    values: readonly string[],
    confidence: number,
    provenance: 'seo_meta' | 'text_extraction',
    display?: string,
  ): void => {
    const list = listValue(values);
    if (list !== null)
      fact(
        primary,
        predicate,
        list.value,
        confidence,
        provenance,
        typeof list.value === 'object' ? { display: display ?? list.display! } : {},
      );
  };

  const hadAuthor = builder.bestFact(primary, 'author') !== undefined;
  // Each person an author line names is one value of the author fact and one Person (as in a
  // JSON-LD author array); the fact's display is the line as the page writes it.
  const authors = metaCandidates(meta, 'author');
  for (const c of authors) listFact('author', c.names!, c.confidence, 'seo_meta', c.value);
  const authorUrls = meta
    .all('article:author')
    .map((v) => absoluteUrl(v, input.baseUrl))
    .filter((u): u is string => u !== null && /^https?:/i.test(u));
  if (!hadAuthor && authors[0] !== undefined) {
    const pages = authorPages(authors[0].names!, data, authorUrls, scan.relAuthors, input.baseUrl, primary);
    for (const person of authors[0].names!)
      addAuthor(builder, primary, person, 'seo_meta', authors[0].confidence, pages.get(person));
  }
  // article:author names the authors' profile pages; those no Person is keyed by are kept as they are.
  const unpairedUrls = authorUrls.filter(
    (url) => !builder.hasEntity({ type: 'Person', canonicalKey: urlKey(url) ?? url }),
  );
  if (unpairedUrls.length > 0) listFact('author_url', unpairedUrls, C.metaOpenGraph, 'seo_meta');
  for (const c of metaCandidates(meta, 'keywords'))
    listFact('keywords', commaItems([c.value]), c.confidence, 'seo_meta');
  const simple: Array<[MetaPredicate, EntityRef]> = [
    ['description', primary],
    ['site_name', siteRef],
  ];
  for (const [predicate, subject] of simple)
    for (const c of metaCandidates(meta, predicate)) fact(subject, predicate, c.value, c.confidence);
  // The <title>'s site part only when nothing declares a site name (it would never survive one).
  if (builder.bestFact(siteRef, 'site_name') === undefined) {
    const titleSite = siteNameFromTitle(
      rawTitle,
      [...metaCandidates(meta, 'name').map((c) => c.value), ...scan.h1Texts],
      hostOf(input.baseUrl),
    );
    // Else, on the home page itself, its title (the first part), or a title that is the host's
    // name; else the alt text of the logo that links home, else a text logo (a link home's own text).
    const homeSite =
      titleSite ??
      siteNameFromHomePage(rawTitle, input.item.url) ??
      siteNameFromHostTitle(rawTitle, hostOf(input.baseUrl));
    if (homeSite !== null) fact(siteRef, 'site_name', homeSite, C.titleHeuristic);
    const logoSite =
      homeSite === null
        ? (siteNameFromLogo(scan.homeLogo, input.baseUrl) ?? siteNameFromHomeLink(scan.homeLinkTexts, input.baseUrl))
        : null;
    if (logoSite !== null) fact(siteRef, 'site_name', logoSite, C.logoAlt);
    // Else the holder its footer's copyright line names.
    const footerSite =
      homeSite === null && logoSite === null
        ? siteNameFromCopyright(scan.footers, textOf, hostOf(input.baseUrl))
        : null;
    if (footerSite !== null) fact(siteRef, 'site_name', footerSite, C.copyrightHolder, 'text_extraction');
  }
  for (const predicate of ['date_published', 'date_modified'] as const) {
    for (const c of metaCandidates(meta, predicate)) {
      const date = normalizeDateTime(c.value);
      if (date !== null) fact(primary, predicate, date.value, c.confidence, 'seo_meta', { display: date.display });
    }
  }
  // Else the <time> a blog theme marks as the publication or the update, else a plain <time>
  // under the title, before the body text.
  const timeFacts = (times: { published: string | null; modified: string | null }, confidence: number): void => {
    for (const [predicate, datetime] of [
      ['date_published', times.published],
      ['date_modified', times.modified],
    ] as const) {
      const date =
        datetime === null || builder.bestFact(primary, predicate) !== undefined ? null : normalizeDateTime(datetime);
      if (date !== null)
        fact(
          primary,
          predicate,
          date.value,
          confidence,
          'text_extraction',
          date.display === undefined ? {} : { display: date.display },
        );
    }
  };
  timeFacts(scan.timeMarks, C.bylineElement);
  // A plain <time> on the page of an event, a place or a product is its date or hours, not the page's.
  if (typeFamily(primary.type) === null) {
    timeFacts(scan.plainTimes, C.unmarkedByline);
    // Else a line under the title that is a label and a written date ("Published on: June 25, 2024").
    timeFacts(scan.labelledDates, C.unmarkedByline);
  }
  addTranslations(builder, primary, name(), scan.translations, input.baseUrl);
  if (scan.canonicalHref !== null) {
    const url = absoluteUrl(scan.canonicalHref, input.baseUrl);
    if (url !== null) fact(primary, 'canonical_url', url, C.metaOpenGraph);
  }
  addMetaFacts({
    meta,
    builder,
    primary,
    siteRef,
    siteName: input.site.brand,
    baseUrl: input.baseUrl,
    subjectName: name,
  });
  const amount = parseAmount(meta.get('product:price:amount') ?? meta.get('og:price:amount'));
  if (amount !== null) {
    const currency = normalizeCurrency(meta.get('product:price:currency') ?? meta.get('og:price:currency'));
    fact(primary, 'price', amount, C.metaOpenGraph, 'seo_meta', { currency, display: formatMoney(amount, currency) });
  }

  mapStructured(input, data.microdata, data.microdataById, data.mainMicrodata, 'microdata', cleanTitle);
  mapStructured(input, data.rdfa, data.rdfaById, data.mainRdfa, 'rdfa', cleanTitle);
  mapStructured(input, data.microformats, EMPTY_INDEX, data.mainMicroformats, 'microformats', cleanTitle);

  // The byline element counts when no structured source named a person as the author (a declared
  // author that is the publication itself leaves the byline to name who wrote it: Persons and
  // author candidates below the declared one); a line under the title that nothing marks ("By
  // Joan Whitaker · December 2, 2023"), else the first link to an author's page before the body
  // text, only when no element is marked.
  const unmarked =
    scan.byline !== null
      ? null
      : ((scan.firstH1 === null
          ? null
          : bylineAfterTitle(scan.firstH1, textOf, (el) => !isHidden(el) && !scan.skipped.has(el))) ??
        bylineFromAuthorLinks(scan.authorLinks, textOf));
  const byline = unmarked?.name ?? scan.byline;
  const bylineElement = unmarked?.element ?? scan.bylineElement;
  const declaredAuthor = builder.bestFact(primary, 'author') !== undefined;
  if (byline !== null && (!declaredAuthor || !builder.hasRelationshipTo(primary, 'authored_by', 'Person'))) {
    const confidence = unmarked === null ? C.bylineElement : C.unmarkedByline;
    const named = personNames(byline);
    // Not the publication again ("By The Ledger" under an article The Ledger declares it wrote).
    const names = declaredAuthor ? named.filter((person) => !builder.namesNonPerson(person)) : named;
    listFact('author', names, confidence, 'text_extraction', names.length === named.length ? byline : undefined);
    const links = bylineLinks(bylineElement!, textOf);
    for (const person of names)
      addAuthor(
        builder,
        primary,
        person,
        'text_extraction',
        confidence,
        authorPage(links.get(person), input.baseUrl, primary),
      );
  }
  // Last, the dates the byline line writes out ("By Jane Roe | March 3, 2024"), as days.
  if (bylineElement !== null && typeFamily(primary.type) === null) {
    const written = bylineDates(textOf(bylineElement));
    for (const [predicate, day] of [
      ['date_published', written.published],
      ['date_modified', written.modified],
    ] as const) {
      if (day !== null && builder.bestFact(primary, predicate) === undefined)
        fact(primary, predicate, day, C.bylineDate, 'text_extraction');
    }
  }

  const blocks = readBlocks(chooseContentRoot(scan), scan.skipped, bylineElement);
  if (builder.bestFact(primary, 'description') === undefined) {
    const paragraph = firstParagraph(blocks, scan.skipped);
    if (paragraph !== null) fact(primary, 'description', paragraph, C.firstParagraph, 'text_extraction');
  }
  const unnamed: string[] = [];
  for (const [pairs, confidence] of [
    [readDefinitionLists(scan.definitionLists), C.definitionList],
    [readKeyValueTables(scan.tables), C.keyValueTable],
  ] as const) {
    for (const kv of pairs) {
      if (kv.predicate === null) unnamed.push(kv.key);
      else fact(primary, kv.predicate, kv.value, confidence, 'text_extraction');
    }
  }
  if (unnamed.length > 0) builder.warnings.push(unnamedLabelsWarning(unnamed));
  const lang = builder.language;
  for (const qa of readDetails(scan.details)) {
    builder.qa.push({
      ...qa,
      language: lang,
      facts: [],
      entities: [{ ...primary }],
      confidence: C.detailsFaq,
      provenanceMethod: 'text_extraction',
    });
  }
  for (const qa of readQuestionHeadings(blocks)) {
    builder.qa.push({
      ...qa,
      language: lang,
      facts: [],
      entities: [{ ...primary }],
      confidence: C.questionHeading,
      provenanceMethod: 'text_extraction',
    });
  }
  return blocks;
}

/** One warning for all key/value rows whose label has no predicate form, naming the first few labels. */
function unnamedLabelsWarning(labels: string[]): string {
  const shown = labels
    .slice(0, 3)
    .map((label) => JSON.stringify(label.slice(0, 40)))
    .join(', ');
  return `predicate.dropped: ${labels.length} key/value row(s) skipped, their label has no snake_case predicate form (${shown}${labels.length > 3 ? ', ...' : ''})`;
}

/**
 * The page in other languages (<link rel="alternate" hreflang="de" href>): one `translation` fact
 * of their urls, displayed with their languages ("de: https://..."), and a `has_translation`
 * relationship to each, the page of that url being the same kind of thing (it resolves once that
 * page is ingested). The page itself and x-default (the fallback, not a language) are left out.
 */
function addTranslations(
  builder: ContributionBuilder,
  primary: EntityRef,
  subjectName: string,
  links: HtmlScan['translations'],
  baseUrl: string,
): void {
  const urls: string[] = [];
  const displays: string[] = [];
  for (const { language, href } of links) {
    const url = absoluteUrl(href, baseUrl);
    const key = url === null ? null : urlKey(url);
    const tag = normalizeLanguage(language);
    if (url === null || key === null || key === primary.canonicalKey || tag === null || urls.includes(url)) continue;
    urls.push(url);
    displays.push(`${tag}: ${url}`);
    builder.addRelationship(
      primary,
      'has_translation',
      { type: primary.type, canonicalKey: key },
      'seo_meta',
      C.metaName,
    );
  }
  const list = listValue(urls, displays);
  if (list !== null)
    builder.addFact({
      subject: primary,
      subjectName,
      predicate: 'translation',
      value: list.value,
      provenance: 'seo_meta',
      confidence: C.metaName,
      ...(list.display === undefined ? {} : { display: list.display }),
    });
}

/** A person's own page: its url as stated, and its urlKey, which identifies the person (docs/extraction.md "Identity"). */
interface AuthorPage {
  url: string;
  key: string;
}

/**
 * The page a byline, a microdata or RDFa author, or article:author links for an author, which
 * identifies the person as a schema.org url does; undefined for no link, the item itself, a
 * website's root (a link home names no one person: two authors linking it would become one) or
 * a page about many people ("/team", personPage).
 */
function authorPage(href: string | undefined, baseUrl: string, item: EntityRef): AuthorPage | undefined {
  const url = href === undefined ? null : absoluteUrl(href, baseUrl);
  const key = url === null ? null : urlKey(url);
  if (
    url === null ||
    key === null ||
    key === item.canonicalKey ||
    key === urlKey(baseUrl) ||
    new URL(key).pathname === '/' ||
    !personPage(key, baseUrl)
  )
    return undefined;
  return { url, key };
}

/**
 * The pages of the people a meta author line names, by name: what microdata, RDFa or
 * microformats say of an author of the same name (its url, itemid or sameAs; their author is
 * not read when the head names one, as visible text carries noise), a rel="author" link whose
 * text is that name, else, when the line names one person, the one article:author url or the one
 * page rel="author" links.
 */
function authorPages(
  names: readonly string[],
  data: StructuredData,
  articleAuthorUrls: readonly string[],
  relAuthors: HtmlScan['relAuthors'],
  baseUrl: string,
  item: EntityRef,
): Map<string, AuthorPage> {
  const stated = new Map<string, string>();
  for (const main of [data.mainMicrodata, data.mainRdfa, data.mainMicroformats]) {
    if (main === null) continue;
    for (const author of [...asList(main.author), ...asList(main.creator)]) {
      if (!isObject(author)) continue;
      const name = nodeName(author);
      const url = identityUrl(author, baseUrl, true);
      const key = name === null ? null : nameKey(personName(name));
      if (key !== null && url !== null && !stated.has(key)) stated.set(key, url);
    }
  }
  for (const link of relAuthors) {
    const key = link.text === '' ? null : nameKey(personName(link.text));
    if (key !== null && !stated.has(key)) stated.set(key, link.href);
  }
  const relPages = [...new Set(relAuthors.map((link) => link.href))];
  const pages = new Map<string, AuthorPage>();
  for (const name of names) {
    const only =
      names.length === 1
        ? articleAuthorUrls.length === 1
          ? articleAuthorUrls[0]
          : relPages.length === 1
            ? relPages[0]
            : undefined
        : undefined;
    const href = stated.get(nameKey(name)) ?? only;
    const page = authorPage(href, baseUrl, item);
    if (page !== undefined) pages.set(name, page);
  }
  return pages;
}

function addAuthor(
  builder: ContributionBuilder,
  subject: EntityRef,
  name: string,
  provenance: 'seo_meta' | 'text_extraction',
  confidence: number,
  page?: AuthorPage,
): void {
  const ref = builder.addEntity({
    type: 'Person',
    canonicalKey: page?.key ?? nameKey(name),
    name,
    provenance,
    confidence,
    importance: 3,
  });
  if (page !== undefined)
    builder.addFact({ subject: ref, subjectName: name, predicate: 'url', value: page.url, provenance, confidence });
  builder.addRelationship(subject, 'authored_by', ref, provenance, confidence);
}

const PAGE_DATES = ['datePublished', 'dateModified'] as const;

/**
 * The page nodes of the main node: the page whose mainEntity it is, the page its isPartOf or
 * mainEntityOfPage names, or a page node with the item's own url.
 */
function pagesOf(
  main: SchemaNode,
  primary: EntityRef,
  mainPages: ReadonlySet<SchemaNode>,
  nodes: SchemaNode[],
  ctx: SchemaContext,
): SchemaNode[] {
  const named = new Set(referencedIds([...asList(main.isPartOf), ...asList(main.mainEntityOfPage)]));
  return nodes.filter((node) => {
    if (node === main || !isPageNode(node)) return false;
    if (mainPages.has(node)) return true;
    const id = node['@id'];
    if (typeof id === 'string' && named.has(id)) return true;
    return isItemPage(node.url ?? id, primary, ctx.baseUrl);
  });
}

/** Whether a node's mainEntityOfPage names the item: the main node's @id, or the item's own page. */
function describesItem(
  mainEntityOfPage: unknown,
  main: SchemaNode | null,
  primary: EntityRef,
  baseUrl: string,
): boolean {
  return referencedIds(mainEntityOfPage).some(
    (id) => (main !== null && id === main['@id']) || isItemPage(id, primary, baseUrl),
  );
}

/** The ids references name: a string itself, an object's @id (else its url); empty ones left out. */
function referencedIds(value: unknown): string[] {
  return asList(value)
    .map((ref) => (isObject(ref) ? (ref['@id'] ?? ref.url) : ref))
    .filter((id): id is string => typeof id === 'string' && id.trim() !== '');
}

/** Whether a url-ish value is the item's own page. */
function isItemPage(value: unknown, primary: EntityRef, baseUrl: string): boolean {
  const url = urlValue(value, baseUrl);
  return url !== null && urlKey(url) === primary.canonicalKey;
}

function mapStructured(
  input: HtmlFactsInput,
  nodes: SchemaNode[],
  byId: Map<string, SchemaNode>,
  main: SchemaNode | null,
  source: 'jsonLd' | 'microdata' | 'rdfa' | 'microformats',
  cleanTitle: string | null,
): void {
  if (nodes.length === 0) return;
  const { builder, primary, siteRef } = input;
  const confidence = C[source];
  const ctx: SchemaContext = {
    builder,
    provenance: 'schema_org',
    confidence,
    site: input.site,
    siteRef,
    baseUrl: input.baseUrl,
    byId,
  };
  ctx.sharedUrls = sharedIdentityUrls(nodes, ctx);
  const seen = new Set<SchemaNode>();
  // Microdata reads visible text, which carries UI noise ("By ...", "Follow"): for the item's
  // title, author and description, and for the site's name, it only counts when no declared
  // metadata gives them.
  const weak = source !== 'jsonLd';
  const siteName = (value: string, siteConfidence: number): void => {
    if (weak && builder.bestFact(siteRef, 'site_name') !== undefined) return;
    builder.addFact({
      subject: siteRef,
      subjectName: input.site.brand,
      predicate: 'site_name',
      value,
      provenance: 'schema_org',
      confidence: siteConfidence,
    });
  };
  if (main !== null) {
    const headline = textValue(main.headline);
    // A JobPosting names itself in `title`.
    const mainName = textValue(main.name) ?? (typesOf(main).includes('JobPosting') ? textValue(main.title) : null);
    let title = mainName ?? headline;
    // Some sites put their own name in "name" and the article's in "headline": take the one that matches the page title.
    if (mainName !== null && headline !== null && mainName !== headline && cleanTitle !== null) {
      if (textSimilarity(headline, cleanTitle) > 0.75 && !(textSimilarity(mainName, cleanTitle) > 0.75))
        title = headline;
    }
    const skip = new Set<string>();
    if (weak) {
      for (const [property, predicate] of [
        ['author', 'author'],
        ['creator', 'author'],
        ['description', 'description'],
        ['headline', 'headline'],
      ] as const) {
        if (builder.bestFact(primary, predicate) !== undefined) skip.add(property);
      }
    }
    if (title !== null)
      (!weak || input.titles.length === 0 ? input.titles : input.alternateNames).push({
        value: title,
        provenance: 'schema_org',
        confidence,
      });
    mapSchemaNode(main, primary, input.subjectName(), { ...ctx }, 0, seen, skip);
    // The dates Yoast states on the WebPage and not on its Article: the item's page says them.
    const undated = PAGE_DATES.filter((key) => main[key] === undefined);
    if (undated.length > 0) {
      for (const page of pagesOf(main, primary, input.data.mainPages, nodes, ctx)) {
        const dates = Object.fromEntries(
          undated.filter((key) => page[key] !== undefined).map((key) => [key, page[key]]),
        );
        if (Object.keys(dates).length > 0)
          mapSchemaNode(dates, primary, input.subjectName(), { ...ctx, confidence: confidence - 0.05 }, 1, new Set());
      }
    }
    const publisher = resolveEntity(main.publisher, 'Organization', ctx);
    if (publisher !== null) {
      const publisherName = textValue((publisher.node ?? {}).name) ?? publisher.name;
      siteName(publisherName, confidence);
    }
  }
  for (const node of nodes) {
    if (node === main || seen.has(node) || input.data.mainPages.has(node)) continue;
    // The main node reached through an @id reference is a merged copy of this node.
    if (main !== null && typeof node['@id'] === 'string' && node['@id'] === main['@id']) continue;
    const types = typesOf(node);
    if (types.includes('ItemList') && !seen.has(node)) {
      seen.add(node);
      mapListMembers(node.itemListElement, primary, input.subjectName(), ctx, 1, seen);
      continue;
    }
    if (types.includes('WebSite')) {
      const name = textValue(node.name);
      // og:site_name and application-name come first, as Readability reads a site's name (it
      // reads no WebSite node): the WebSite's name counts where the head declares none.
      if (name !== null && metaCandidates(input.data.meta, 'site_name').length === 0) siteName(name, confidence - 0.05);
      const description = textValue(node.description);
      if (description !== null)
        builder.addFact({
          subject: siteRef,
          subjectName: input.site.brand,
          predicate: 'description',
          value: description,
          provenance: 'schema_org',
          confidence: confidence - 0.05,
        });
      continue;
    }
    if (types.length === 0 || types.some((t) => OTHER_SKIPPED.has(t))) continue;
    // A review beside the page's main node, often without a name: a Review of what it reviews (else of the item), named as reviews are.
    if (types.includes('Review') && nodeName(node) === null) {
      const reviewed = resolveEntity(node.itemReviewed, 'Thing', ctx);
      if (reviewed !== null && reviewed.ref !== siteRef)
        builder.addEntity({
          ...reviewed.ref,
          name: reviewed.name,
          provenance: 'schema_org',
          confidence,
          importance: 3,
        });
      mapReviews(node, reviewed?.ref ?? primary, reviewed?.name ?? input.subjectName(), ctx, 1, seen);
      continue;
    }
    const entity = resolveEntity(node, types[0]!, ctx);
    if (entity === null) continue;
    if (entity.ref !== siteRef)
      builder.addEntity({ ...entity.ref, name: entity.name, provenance: 'schema_org', confidence, importance: 2 });
    mapSchemaNode(node, entity.ref, entity.name, ctx, 1, seen);
    // A thing whose main page is this item (a recipe plugin's Recipe beside the page's Article,
    // mainEntityOfPage naming the Article or the page) is what the item describes.
    if (entity.ref !== siteRef && describesItem(node.mainEntityOfPage, main, primary, input.baseUrl))
      builder.addRelationship(primary, 'main_entity', entity.ref, 'schema_org', confidence);
    // A video or a recording beside the item's own node (or alone on a page) is the item's, as
    // schema.org's video and audio properties say; it is never the item itself (pickMainNode).
    else if (types.includes('VideoObject'))
      builder.addRelationship(primary, 'video', entity.ref, 'schema_org', confidence);
    else if (types.includes('AudioObject'))
      builder.addRelationship(primary, 'audio', entity.ref, 'schema_org', confidence);
  }
  // The page's place in the website: the main node's breadcrumb, its page's, else a trail on its own.
  const pages = [...input.data.mainPages].filter((page) => nodes.includes(page));
  const trail = breadcrumbTrail(
    [...asList(main?.breadcrumb), ...pages.flatMap((page) => asList(page.breadcrumb)), ...nodes],
    byId,
  );
  const crumbs = listValue(trail);
  if (crumbs !== null) {
    const display = typeof crumbs.value === 'object' ? { display: crumbs.value.values.join(' › ') } : {};
    builder.addFact({
      subject: primary,
      subjectName: input.subjectName(),
      predicate: 'breadcrumb',
      value: crumbs.value,
      provenance: 'schema_org',
      confidence,
      ...display,
    });
  }
  for (const qa of readSchemaFaq(nodes, byId)) {
    builder.qa.push({
      ...qa,
      language: builder.language,
      facts: [],
      entities: [{ ...primary }],
      confidence,
      provenanceMethod: 'schema_org',
    });
  }
}
