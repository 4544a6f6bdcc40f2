import type { EntityRef } from './contribution.js';
import type { ContributionBuilder } from './contribution-builder.js';
import { twitterLabels, WRITTEN_BY_LABEL, type MetaValues } from './meta.js';
import { commaItems, dateList, listValue } from './multi-value.js';
import { absoluteUrl, schemaTerm } from './normalize.js';
import { SOURCE_CONFIDENCE as C } from './predicates.js';
import { lookup, toPredicate } from './record-values.js';
import { addCategory } from './schema-org.js';

/**
 * Head metadata beyond title, author, description, dates and site name (docs/extraction.md
 * "Head metadata"): every value of a repeated OpenGraph tag, og:url and og:locale, the
 * product:, profile:, music:, video: and book: namespaces, twitter:creator and twitter:site,
 * and the fifteen Dublin Core elements in their dc: and dcterms: spellings.
 */
export interface MetaFactsInput {
  meta: MetaValues;
  builder: ContributionBuilder;
  primary: EntityRef;
  siteRef: EntityRef;
  siteName: string;
  baseUrl: string;
  subjectName: () => string;
}

/** Dublin Core elements not read as a title, author, description or date candidate, by predicate. */
const DUBLIN_CORE: Record<string, string> = {
  subject: 'subject',
  publisher: 'publisher',
  contributor: 'contributor',
  type: 'dc_type',
  format: 'format',
  identifier: 'identifier',
  source: 'source',
  language: 'in_language',
  relation: 'relation',
  coverage: 'coverage',
  rights: 'rights',
  created: 'date_created',
  license: 'license',
  spatial: 'coverage',
  temporal: 'coverage',
  ispartof: 'is_part_of',
  rightsholder: 'rights_holder',
};
const DUBLIN_CORE_DATES = new Set(['date_created']);
/** Open Graph namespaces read key by key; product:price:* is the price and handled on its own. */
const OPEN_GRAPH_NAMESPACES = ['product', 'profile', 'music', 'video', 'book', 'article'];
/** article:* keys read as candidates or categories elsewhere (dates, author, publisher, section, tags). */
const READ_ELSEWHERE = new Set([
  'article:published_time',
  'article:modified_time',
  'article:author',
  'article:publisher',
  'article:section',
  'article:tag',
]);
/** Keys of those namespaces whose predicate is not their last part. */
const NAMESPACE_PREDICATES: Record<string, string> = {
  'product:retailer_item_id': 'sku',
  'product:upc': 'gtin',
  'product:ean': 'gtin',
  'product:isbn': 'isbn',
  'product:category': 'category',
  'product:availability': 'availability',
  'product:condition': 'condition',
  'book:isbn': 'isbn',
  'book:tag': 'tag',
  'book:author': 'author_url',
  'music:musician': 'musician_url',
  'music:creator': 'creator_url',
  'video:director': 'director_url',
  'video:writer': 'writer_url',
  'video:actor': 'actor_url',
  'video:series': 'series_url',
  'music:album': 'album_url',
  'music:song': 'song_url',
  'video:tag': 'tag',
  'profile:username': 'username',
};
/**
 * Scholarly citation tags (Highwire Press, as Google Scholar reads them) not read as a title,
 * author, description or date candidate, by predicate; any other citation_<x> is the fact <x>.
 */
const CITATION: Record<string, string> = {
  citation_journal_title: 'journal',
  citation_journal_abbrev: 'journal_abbreviation',
  citation_conference_title: 'conference',
  citation_firstpage: 'first_page',
  citation_lastpage: 'last_page',
  citation_pdf_url: 'pdf_url',
  citation_fulltext_html_url: 'fulltext_url',
  citation_abstract_html_url: 'abstract_url',
  citation_language: 'in_language',
  citation_dissertation_institution: 'institution',
  citation_technical_report_institution: 'institution',
  citation_technical_report_number: 'report_number',
};
const CITATION_READ_ELSEWHERE = new Set([
  'citation_title',
  'citation_author',
  'citation_abstract',
  'citation_publication_date',
  'citation_online_date',
  'citation_date',
]);
const SNAKE = /^[a-z][a-z0-9_]*$/;
const DATE_KEY = /(date|time)$/;

export function addMetaFacts(input: MetaFactsInput): void {
  const { meta, builder, primary, siteRef } = input;
  const add = (
    subject: EntityRef,
    predicate: string,
    values: string[],
    confidence: number,
    displays: Array<string | undefined> = [],
  ): void => {
    const list = listValue(values, displays);
    if (list === null) return;
    builder.addFact({
      subject,
      subjectName: subject === siteRef ? input.siteName : input.subjectName(),
      predicate,
      value: list.value,
      provenance: 'seo_meta',
      confidence,
      ...(list.display === undefined ? {} : { display: list.display }),
    });
  };
  const urls = (values: string[]): string[] =>
    values.map((v) => absoluteUrl(v, input.baseUrl)).filter((u): u is string => u !== null);

  add(
    primary,
    'image',
    urls([...meta.all('og:image'), ...meta.all('og:image:url'), ...meta.all('og:image:secure_url')]),
    C.metaOpenGraph,
  );
  add(primary, 'image', urls(meta.all('twitter:image')), C.metaTwitter);
  add(primary, 'image_alt', [...meta.all('og:image:alt'), ...meta.all('twitter:image:alt')], C.metaOpenGraph);
  add(primary, 'video', urls([...meta.all('og:video'), ...meta.all('og:video:url')]), C.metaOpenGraph);
  add(primary, 'audio', urls([...meta.all('og:audio'), ...meta.all('og:audio:url')]), C.metaOpenGraph);
  add(primary, 'url', urls(meta.all('og:url').slice(-1)), C.metaOpenGraph);
  add(primary, 'locale', meta.all('og:locale').slice(-1), C.metaOpenGraph);
  add(primary, 'locale_alternate', meta.all('og:locale:alternate'), C.metaOpenGraph);
  add(primary, 'twitter_creator', meta.all('twitter:creator').slice(-1), C.metaTwitter);
  add(siteRef, 'twitter_site', meta.all('twitter:site').slice(-1), C.metaTwitter);
  // The geo meta tags of local pages: geo.position (or ICBM) "lat;lon", geo.placename, geo.region.
  const position = /^\s*(-?\d+(?:\.\d+)?)\s*[;,]\s*(-?\d+(?:\.\d+)?)\s*$/.exec(
    meta.get('geo:position') ?? meta.get('icbm') ?? '',
  );
  if (position !== null && Math.abs(Number(position[1])) <= 90 && Math.abs(Number(position[2])) <= 180) {
    const [latitude, longitude] = [Number(position[1]), Number(position[2])];
    builder.addFact({
      subject: primary,
      subjectName: input.subjectName(),
      predicate: 'geo',
      value: { latitude, longitude },
      display: `${latitude}, ${longitude}`,
      provenance: 'seo_meta',
      confidence: C.metaName,
    });
  }
  add(primary, 'place_name', meta.all('geo:placename').slice(-1), C.metaName);
  add(primary, 'region', meta.all('geo:region').slice(-1), C.metaName);
  // A Twitter card's other label pairs ("Est. reading time": "5 minutes") are facts named by their label.
  for (const { label, data } of twitterLabels(meta)) {
    const predicate = WRITTEN_BY_LABEL.test(label) ? null : toPredicate(label.replace(/^est(?:imated|\.)?\s+/i, ''));
    if (predicate !== null && SNAKE.test(predicate)) add(primary, predicate, [data], C.metaTwitter - 0.03);
  }
  // article:publisher names the publisher's own page elsewhere (its Facebook page): the site's sameAs.
  add(
    siteRef,
    'same_as',
    meta
      .all('article:publisher')
      .filter((v) => /^https?:\/\//i.test(v.trim()))
      .map((v) => v.trim()),
    C.metaOpenGraph,
  );
  // Parse.ly's own tags (parsely-title, -author and -pub-date are title, author and date candidates).
  add(primary, 'url', urls(meta.all('parsely-link').slice(-1)), C.metaParsely);
  add(primary, 'image', urls(meta.all('parsely-image-url').slice(-1)), C.metaParsely);
  for (const section of meta.all('parsely-section').slice(-1))
    addCategory(builder, primary, section, 'seo_meta', C.metaParsely);
  for (const tag of commaItems(meta.all('parsely-tags').slice(-1)))
    addCategory(builder, primary, tag, 'seo_meta', C.metaParsely, 'tag');
  for (const section of meta.all('article:section'))
    addCategory(builder, primary, section, 'seo_meta', C.metaOpenGraph);
  for (const tag of meta.all('article:tag')) addCategory(builder, primary, tag, 'seo_meta', C.metaOpenGraph, 'tag');

  for (const key of meta.keys()) {
    const colon = key.indexOf(':');
    const prefix = key.slice(0, colon);
    const local = key.slice(colon + 1);
    if (prefix === 'dc' || prefix === 'dcterms') {
      const predicate = lookup(DUBLIN_CORE, local);
      if (predicate === undefined) continue;
      const values = meta.all(key);
      if (DUBLIN_CORE_DATES.has(predicate)) {
        const dates = dateList(values);
        add(primary, predicate, dates.values, C.metaDublinCore, dates.displays);
      } else {
        add(primary, predicate, values, C.metaDublinCore);
      }
    } else if (colon < 0 && key.startsWith('citation_') && !CITATION_READ_ELSEWHERE.has(key)) {
      const predicate = lookup(CITATION, key) ?? key.slice('citation_'.length);
      if (!SNAKE.test(predicate)) continue;
      let values = meta.all(key);
      if (predicate.endsWith('_url')) values = urls(values);
      else if (predicate === 'keywords') values = values.flatMap((v) => v.split(/\s*;\s*/)).filter((v) => v !== '');
      add(primary, predicate, values, C.metaParsely - 0.03);
    } else if (
      OPEN_GRAPH_NAMESPACES.includes(prefix) &&
      !key.startsWith('product:price:') &&
      !READ_ELSEWHERE.has(key)
    ) {
      const predicate = lookup(NAMESPACE_PREDICATES, key) ?? local.replace(/[:.-]/g, '_');
      if (!SNAKE.test(predicate)) continue;
      let values = meta.all(key);
      // Profile references (book:author, music:musician, ...): the urls; a name there is an author candidate (meta.ts).
      if (predicate.endsWith('_url')) values = urls(values);
      // "in stock" / "out of stock" read as schema.org's terms (InStock, OutOfStock), as offers give them.
      if (predicate === 'availability' || predicate === 'condition')
        values = values.map((v) =>
          schemaTerm(v)
            .split(/[\s_]+/)
            .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
            .join(''),
        );
      if (predicate === 'tag' || predicate === 'category') {
        for (const value of values) addCategory(builder, primary, value, 'seo_meta', C.metaOpenGraph, predicate);
        continue;
      }
      if (DATE_KEY.test(predicate)) {
        const dates = dateList(values);
        add(primary, predicate, dates.values, C.metaOpenGraph, dates.displays);
        continue;
      }
      add(primary, predicate, values, C.metaOpenGraph);
    }
  }
}

/** Entity type an og:type names, for a page whose item type and schema.org data say nothing more specific. */
const OG_TYPES: Record<string, string> = {
  article: 'Article',
  product: 'Product',
  profile: 'Person',
  book: 'Book',
  'music.song': 'MusicRecording',
  'music.album': 'MusicAlbum',
  'music.playlist': 'MusicPlaylist',
  'music.radio_station': 'RadioStation',
  'video.movie': 'Movie',
  'video.episode': 'TVEpisode',
  'video.tv_show': 'TVSeries',
  'video.other': 'VideoObject',
  place: 'Place',
  event: 'Event',
  restaurant: 'Restaurant',
};

export function ogTypeHint(meta: MetaValues): string | undefined {
  const type = meta.get('og:type');
  const hinted = type === undefined ? undefined : lookup(OG_TYPES, type.trim().toLowerCase());
  // Scholarly citation tags describe a paper.
  return hinted ?? (meta.get('citation_title') !== undefined ? 'ScholarlyArticle' : undefined);
}
