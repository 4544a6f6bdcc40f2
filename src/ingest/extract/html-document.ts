import { parseDocument } from 'htmlparser2';
import type { AnyNode, Document, Element, ParentNode, Text } from 'domhandler';
import { BODY_TEXT_LENGTH, isBylineMarked, labelledDate, readByline, UPDATE_LABEL } from './byline.js';

/**
 * One parse of a page (htmlparser2) and one walk over its tree that collects everything the
 * other modules read: head metadata, JSON-LD blocks, microdata roots, the byline candidate,
 * structured blocks (dl, tables, details) and the paragraph scores that pick the main content.
 */
export interface MetaTag {
  name: string | null;
  property: string | null;
  content: string;
}

export interface HtmlScan {
  document: Document;
  htmlLang: string | null;
  contentLanguage: string | null;
  title: string | null;
  baseHref: string | null;
  canonicalHref: string | null;
  metas: MetaTag[];
  /** RDFa `prefix` declarations of <html>/<head> and <link rel="schema.X" href> ones ("X: uri"), in document order. */
  prefixes: string[];
  /** True when some element has a vocab or typeof attribute (RDFa in the body). */
  hasRdfa: boolean;
  /** True when some element has a microformats2 root class (h-card, h-entry, ...). */
  hasMicroformats: boolean;
  jsonLd: string[];
  microdataRoots: Element[];
  /** Trimmed text of every h1 and h2, for the title heuristics. */
  headingTexts: string[];
  h1Texts: string[];
  /** The first visible <h1> outside boilerplate: an unmarked byline may follow it (bylineAfterTitle). */
  firstH1: Element | null;
  byline: string | null;
  /** The element the byline was read from. */
  bylineElement: Element | null;
  details: Element[];
  definitionLists: Element[];
  tables: Element[];
  /** Explicit main-content containers in document order, by strength (articleBody, article, main). */
  explicitMain: Element[];
  /** Elements not to read as content: navigation, boilerplate, hidden. */
  skipped: Set<Element>;
  /** Paragraph scores summed per container (Readability's scoring, simplified). */
  scores: Map<Element, number>;
  body: Element | null;
  /** The first image with alt text inside a link to the website's home page (its logo, as sites mark up their name), and that link's href. */
  homeLogo: { alt: string; href: string } | null;
  /**
   * Visible links to an author's page (`/author/jane-roe`, `/authors/...`, `/autor/...`) met
   * before the first paragraph of body text, at most AUTHOR_LINKS: a byline that no class marks.
   * None on a page of several `<article>`s (a list of posts, each by someone).
   */
  authorLinks: Element[];
  /** The text of the first links to the site's root ("/", "https://host/") that hold no image, at most HOME_LINK_TEXTS: a text logo ("Northfield Nature Club"). */
  homeLinkTexts: Array<{ text: string; href: string }>;
  /** Links marked rel="author" (<link> in the head, <a> in the page), with the link's text ('' for <link>): the author's own page. At most REL_AUTHORS_MAX. */
  relAuthors: Array<{ href: string; text: string }>;
  /**
   * The page's last footers (<footer>, role=contentinfo, a footer or copyright class) outside
   * any other and outside the content (an article's footer credits its photos), at most FOOTERS:
   * their copyright line may name the site.
   */
  footers: Element[];
  /** <link rel="alternate" hreflang href>: the page in other languages, at most REL_AUTHORS_MAX. */
  translations: Array<{ language: string; href: string }>;
  /** The datetime of the first <time> marked as the publication (a pubdate attribute, a class such as "entry-date published"), and of the first marked as the update. */
  timeMarks: { published: string | null; modified: string | null };
  /**
   * The `<time datetime>` that nothing marks, met after the first `<h1>` and before the body
   * text (before a second paragraph, or in none) outside boilerplate, lists and tables, as the
   * publication when it is the only one there, and the first labelled as an update ("updated
   * <time>"): a theme's plain date under the title. None on a page of several `<article>`s.
   */
  plainTimes: { published: string | null; modified: string | null };
  /**
   * The days the first lines that are a label and a written date state ("Published on: June 25,
   * 2024"), met before the body text outside boilerplate. None on a page of several `<article>`s.
   */
  labelledDates: { published: string | null; modified: string | null };
}

const SKIP_TAGS = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'math',
  'iframe',
  'object',
  'embed',
  'canvas',
  'button',
  'select',
  'textarea',
  'input',
]);
const BOILERPLATE_TAGS = new Set(['nav', 'aside', 'footer', 'form', 'dialog', 'menu']);
const BOILERPLATE_ROLES = new Set([
  'navigation',
  'banner',
  'contentinfo',
  'complementary',
  'menu',
  'menubar',
  'dialog',
  'alertdialog',
  'search',
]);
const UNLIKELY =
  /-ad-|ai2html|banner|breadcrumbs|combx|comment|community|cover-wrap|disqus|extra|footer|gdpr|header|legends|menu|related|remark|replies|rss|shoutbox|sidebar|skyscraper|social|sponsor|supplemental|ad-break|agegate|pagination|pager|popup|yom-remote|cookie|newsletter|share|advert|(?:^|[\s_-])ads?(?:$|[\s_-])/i;
const MAYBE_CANDIDATE = /and|article|body|column|content|main|mathjax|shadow/i;
/** microformats2 roots, and the classic (microformats 1) ones blog themes still print (WordPress's hentry, vcard), which microformats-parser reads as their mf2 forms. */
const MICROFORMAT_ROOT =
  /(?:^|\s)(?:h-(?:card|entry|event|product|review|adr|geo|item|recipe)|hentry|vcard|vevent|hreview|hproduct|hrecipe)(?:\s|$)/;
const HIDDEN_STYLE = /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)/i;

export function parseHtml(html: string): Document {
  return parseDocument(html, { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true });
}

/**
 * Concatenated text of a subtree, without script and style content nor the elements in
 * `skipped`. Walks the sibling and parent links rather than recursing, so no nesting depth
 * exhausts the stack (a page nested 10,000 elements deep is still read).
 */
export function textOf(node: AnyNode, skipped?: ReadonlySet<Element>): string {
  if (node.type === 'text') return (node as Text).data;
  if (!hasReadableChildren(node, skipped)) return '';
  let out = '';
  let current: AnyNode = node.children[0]!;
  for (;;) {
    if (current.type === 'text') {
      out += (current as Text).data;
    } else if (hasReadableChildren(current, skipped)) {
      current = current.children[0]!;
      continue;
    }
    // Past current's subtree: its next sibling, else the next sibling of the nearest ancestor that has one.
    while (current.next === null) {
      current = current.parent!;
      if (current === node) return out;
    }
    current = current.next;
  }
}

/** An element, document or CDATA with children textOf reads: not script, style or a skipped element. */
function hasReadableChildren(node: AnyNode, skipped: ReadonlySet<Element> | undefined): node is ParentNode {
  const type = node.type;
  if (type !== 'tag' && type !== 'root' && type !== 'cdata') return false;
  return (node as ParentNode).children.length > 0 && (skipped === undefined || !skipped.has(node as Element));
}

export function isHidden(el: Element): boolean {
  const a = el.attribs;
  if (a.hidden !== undefined) return true;
  if (a['aria-hidden'] === 'true' && !(a.class ?? '').includes('fallback-image')) return true;
  return a.style !== undefined && HIDDEN_STYLE.test(a.style);
}

function isBoilerplate(el: Element, inArticle: boolean): boolean {
  if (BOILERPLATE_TAGS.has(el.name)) return true;
  if (el.name === 'header' && !inArticle) return true;
  const role = el.attribs.role;
  if (role !== undefined && BOILERPLATE_ROLES.has(role)) return true;
  if (el.name === 'body' || el.name === 'html' || el.name === 'article' || el.name === 'main') return false;
  const match = (el.attribs.class ?? '') + ' ' + (el.attribs.id ?? '');
  return match.length > 1 && UNLIKELY.test(match) && !MAYBE_CANDIDATE.test(match);
}

function addScore(scores: Map<Element, number>, el: Element | null, value: number): void {
  if (el === null || el.type !== 'tag') return;
  scores.set(el, (scores.get(el) ?? 0) + value);
}

const HIDDEN = 1;
const SKIPPED = 2;
const IN_ARTICLE = 4;
/** Below an element with itemscope: a nested item belongs to that item. */
const IN_ITEM = 8;
/** Inside a footer already recorded (scan.footers). */
const IN_FOOTER = 16;

/** A link to a website's home page: "/", "./", an absolute url with no path, or a path to an index page ("/www/default.htm"). */
const HOME_HREF =
  /^(?:\.?\/|(?:https?:)?\/\/[^/?#\s]+\/?|(?:(?:https?:)?\/\/[^/?#\s]+)?(?:\/[\w.-]+)*\/(?:index|default|home)(?:\.[a-z]{2,5})?)$/i;
/** A link to a person's page on the site: a path segment naming authors, then the person's slug. */
const AUTHOR_HREF =
  /^(?:(?:https?:)?\/\/[^/?#\s]+)?(?:\/[\w.-]+)*\/(?:authors?|autor(?:es|en|i)?|auteurs?|autore|writers?|contributors?|editors?|columnists?|reporters?|journalists?|correspondents?|bloggers?|people|profiles?|staff|by)\/[\w%.-]+\/?(?:[?#].*)?$/i;
const AUTHOR_LINKS = 5;

/** The site's root itself (not an index page under a folder, "/blog/index.html"): a link's text there can name the site. */
const ROOT_HREF = /^(?:\.?\/|(?:https?:)?\/\/[^/?#\s]+\/?)$/i;
/** Root links whose text is kept: the text logo comes first; later ones are menus ("Home"). */
const HOME_LINK_TEXTS = 3;
/** Footers kept: the last ones, as the site's own comes at the end of the page. */
const FOOTERS = 3;
/** A footer or copyright block marked by its class or id rather than its tag. */
const FOOTER_NAME = /footer|copyright/i;

/** Whether a link holds an image (a logo without alt text names nothing by the link's text). */
function hasImage(link: Element): boolean {
  // At most LOGO_SEARCH_MAX elements are looked at, however many children a link has.
  const stack: AnyNode[] = link.children.slice(0, LOGO_SEARCH_MAX);
  for (let seen = 0; stack.length > 0 && seen < LOGO_SEARCH_MAX; seen++) {
    const node = stack.pop()!;
    if (node.type !== 'tag') continue;
    const el = node as Element;
    if (el.name === 'img' || el.name === 'svg' || el.name === 'picture') return true;
    for (const child of el.children.slice(0, LOGO_SEARCH_MAX)) stack.push(child);
  }
  return false;
}

/** Elements searched below a home link for its logo: a logo is near the top of the link, not deep inside a menu. */
const LOGO_SEARCH_MAX = 20;

/** The first image with alt text below a home link (a few elements at most), as its logo. */
function logoIn(link: Element, href: string): { alt: string; href: string } | null {
  const stack: AnyNode[] = [...link.children].reverse();
  for (let seen = 0; stack.length > 0 && seen < LOGO_SEARCH_MAX; seen++) {
    const node = stack.pop()!;
    if (node.type !== 'tag') continue;
    const el = node as Element;
    const alt = el.name === 'img' ? (el.attribs.alt ?? '').replace(/\s+/g, ' ').trim() : '';
    if (alt !== '') return { alt, href };
    for (let i = el.children.length - 1; i >= 0; i -= 1) stack.push(el.children[i]!);
  }
  return null;
}

const REL_AUTHOR = /(?:^|\s)author(?:\s|$)/i;
/** Classes blog themes and news sites give the <time> of a post's publication (WordPress's "entry-date published", a dateline) and of its update. */
const PUBLISHED_CLASS =
  /(?:^|[\s_-])(?:published|pubdate|post-date|entry-date|date-published|article-date|publish-date|posted-on|dateline)(?:$|[\s_-])/i;
const MODIFIED_CLASS = /(?:^|[\s_-])(?:updated|modified|date-modified|update-date)(?:$|[\s_-])/i;

/**
 * Keeps the first time (a <time>'s datetime, an <abbr>'s title) marked as the publication, and
 * the first marked as the update: by its own class, else by its parent's or grandparent's when
 * it has none of its own (WordPress's `<div class="wp-block-post-date"><time>`, `<span
 * class="posted-on"><a><time>`). False when nothing marks it (or it holds no year).
 */
function markTime(marks: HtmlScan['timeMarks'], el: Element, datetime: string): boolean {
  // A title that holds no year ("Published") is no time.
  if (!/\d{4}/.test(datetime)) return false;
  if (el.attribs.pubdate !== undefined) {
    marks.published ??= datetime;
    return true;
  }
  let marker: Element | null = el;
  for (let level = 0; level < 3 && marker !== null; level += 1) {
    const cls = marker.attribs.class ?? '';
    if (MODIFIED_CLASS.test(cls)) {
      marks.modified ??= datetime;
      return true;
    }
    if (PUBLISHED_CLASS.test(cls)) {
      marks.published ??= datetime;
      return true;
    }
    // hAtom's <abbr> is read by its own class only: its parent's names the entry, not the date.
    if (el.name === 'abbr') return false;
    marker = marker.parent !== null && marker.parent.type === 'tag' ? (marker.parent as Element) : null;
  }
  return false;
}

/** Plain times under the title so far; a second one with no update label makes the first no publication date. */
interface PlainTimes {
  published: string | null;
  modified: string | null;
  unlabelled: number;
}

/**
 * Keeps a time nothing marks: the first as the publication, the first after an update label as
 * the update. A time in a list or a table is one of many (a list of events), never the page's.
 */
function notePlainTime(times: PlainTimes, el: Element, datetime: string): void {
  if (!/\d{4}/.test(datetime) || inListOrTable(el)) return;
  if (UPDATE_LABEL.test(textBefore(el))) {
    times.modified ??= datetime;
    return;
  }
  times.unlabelled += 1;
  times.published = times.unlabelled === 1 ? datetime : null;
}

/** Keeps the days an element's own text states when it is only a label and a written date ("Published on: June 25, 2024"). */
function noteLabelledDate(dates: HtmlScan['labelledDates'], el: Element): void {
  let own = '';
  for (const child of el.children) if (child.type === 'text') own += (child as Text).data;
  if (own.length < 10 || own.length > 120) return;
  const stated = labelledDate(own.trim());
  if (stated === null) return;
  dates.published ??= stated.published;
  dates.modified ??= stated.modified;
}

/** Whether an element is inside a list item or a table cell. */
function inListOrTable(el: Element): boolean {
  for (let parent = el.parent; parent !== null && parent.type === 'tag'; parent = parent.parent) {
    const name = (parent as Element).name;
    if (name === 'li' || name === 'td' || name === 'th' || name === 'dd') return true;
    if (name === 'article' || name === 'main' || name === 'body') return false;
  }
  return false;
}

/** Whether an element is inside a <p> (a few levels up). */
function inParagraph(el: Element): boolean {
  let parent = el.parent;
  for (let level = 0; level < 3 && parent !== null && parent.type === 'tag'; level += 1, parent = parent.parent)
    if ((parent as Element).name === 'p') return true;
  return false;
}

/** The text just before an element inside its parent (up to 40 characters): the label a date is written after. */
function textBefore(el: Element): string {
  let text = '';
  for (let node = el.prev; node !== null && text.length < 40; node = node.prev) {
    if (node.type === 'text') text = (node as Text).data + text;
    else if (node.type === 'tag') text = textOf(node) + text;
  }
  return text.slice(-40);
}
/** rel="author" and hreflang links kept: a page's authors and languages, not a list of every page of the site. */
const REL_AUTHORS_MAX = 20;

/** Walks the tree once. Never throws: htmlparser2 recovers from any markup. */
export function scanHtml(html: string): HtmlScan {
  const document = parseHtml(html);
  const scan: HtmlScan = {
    document,
    htmlLang: null,
    contentLanguage: null,
    title: null,
    baseHref: null,
    canonicalHref: null,
    metas: [],
    prefixes: [],
    hasRdfa: false,
    hasMicroformats: false,
    jsonLd: [],
    microdataRoots: [],
    headingTexts: [],
    h1Texts: [],
    firstH1: null,
    byline: null,
    bylineElement: null,
    details: [],
    definitionLists: [],
    tables: [],
    explicitMain: [],
    skipped: new Set(),
    scores: new Map(),
    body: null,
    homeLogo: null,
    homeLinkTexts: [],
    authorLinks: [],
    relAuthors: [],
    footers: [],
    translations: [],
    timeMarks: { published: null, modified: null },
    plainTimes: { published: null, modified: null },
    labelledDates: { published: null, modified: null },
  };
  /** Whether a paragraph of body text was met: a byline comes before it. */
  let bodyTextSeen = false;
  const plainTimes: PlainTimes = { published: null, modified: null, unlabelled: 0 };
  /** Paragraphs met after the first <h1>: a plain date is in the first (the line under the title) or before it. */
  let paragraphsAfterTitle = 0;
  const articleBodies: Element[] = [];
  const articles: Element[] = [];
  const mains: Element[] = [];

  // An explicit stack rather than recursion, so no nesting depth exhausts the call stack. Each
  // node is pushed with what its ancestors make it: hidden, skipped (boilerplate), in an article.
  const nodes: AnyNode[] = [document];
  const states: number[] = [0];
  const pushChildren = (parent: ParentNode, state: number): void => {
    const children = parent.children;
    for (let i = children.length - 1; i >= 0; i -= 1) {
      const child = children[i]!;
      // Only elements (script included) are visited: text and comments hold nothing the scan reads.
      if (child.type !== 'tag' && child.type !== 'script') continue;
      nodes.push(child);
      states.push(state);
    }
  };
  while (nodes.length > 0) {
    const node = nodes.pop()!;
    const state = states.pop()!;
    if (node.type === 'script') {
      const el = node as Element;
      const type = (el.attribs.type ?? '').trim().toLowerCase();
      if (type === 'application/ld+json')
        scan.jsonLd.push(el.children.map((c) => (c.type === 'text' ? c.data : '')).join(''));
      continue;
    }
    if (node.type !== 'tag') {
      if (node.type === 'root') pushChildren(node as Document, state);
      continue;
    }
    const hidden = (state & HIDDEN) !== 0;
    const skipped = (state & SKIPPED) !== 0;
    const inArticle = (state & IN_ARTICLE) !== 0;
    const el = node as Element;
    const name = el.name;
    const a = el.attribs;
    if (name === 'html' || name === 'head') {
      if (name === 'html') scan.htmlLang ??= a.lang ?? a['xml:lang'] ?? null;
      if (a.prefix !== undefined) scan.prefixes.push(a.prefix);
    } else if (name === 'title') {
      if (scan.title === null) scan.title = textOf(el);
      continue;
    } else if (name === 'meta') {
      if (a.content !== undefined) {
        if (a.name !== undefined || a.property !== undefined)
          scan.metas.push({ name: a.name ?? null, property: a.property ?? null, content: a.content });
        // <meta itemprop="datePublished" content> in no item (in the head, as some themes print
        // it): no microdata parser reads it, so it is read as head metadata, itemprop:<name>.
        else if (a.itemprop !== undefined && (state & IN_ITEM) === 0 && a.itemprop.trim() !== '')
          scan.metas.push({
            name: `itemprop:${a.itemprop.trim().split(/\s+/)[0]}`,
            property: null,
            content: a.content,
          });
        if ((a['http-equiv'] ?? '').toLowerCase() === 'content-language') scan.contentLanguage ??= a.content;
      }
    } else if (name === 'link') {
      const rel = (a.rel ?? '').toLowerCase();
      if (a.href !== undefined && /(^|\s)canonical(\s|$)/.test(rel)) scan.canonicalHref ??= a.href;
      if (
        a.href !== undefined &&
        a.hreflang !== undefined &&
        /(^|\s)alternate(\s|$)/.test(rel) &&
        scan.translations.length < REL_AUTHORS_MAX
      ) {
        scan.translations.push({ language: a.hreflang.trim(), href: a.href.trim() });
      }
      // Dublin Core in links: <link rel="schema.DCTERMS" href="http://purl.org/dc/terms/"> declares
      // a prefix, <link rel="DCTERMS.relation" href="..."> states a value, read like a meta name.
      const linkRel = (a.rel ?? '').trim();
      if (a.href !== undefined && /^schema\.[\w-]+$/i.test(linkRel))
        scan.prefixes.push(`${linkRel.slice(7)}: ${a.href}`);
      else if (a.href !== undefined && /^[\w-]+\.[\w.-]+$/.test(linkRel) && /^(dc|dcterms)\./i.test(linkRel))
        scan.metas.push({ name: linkRel, property: null, content: a.href });
    } else if (name === 'base') {
      if (a.href !== undefined) scan.baseHref ??= a.href;
    } else if (name === 'body') {
      scan.body ??= el;
    }
    if (name === 'a' && scan.homeLogo === null && a.href !== undefined && HOME_HREF.test(a.href.trim())) {
      const href = a.href.trim();
      scan.homeLogo = logoIn(el, href);
      if (
        scan.homeLogo === null &&
        scan.homeLinkTexts.length < HOME_LINK_TEXTS &&
        ROOT_HREF.test(href) &&
        !hasImage(el)
      ) {
        const text = textOf(el).replace(/\s+/g, ' ').trim();
        if (text !== '' && text.length <= 60) scan.homeLinkTexts.push({ text, href });
      }
    }
    // A labelled date says what it is wherever it stands before the body text, above the title too.
    if (!bodyTextSeen && !skipped && !hidden && name !== 'time') noteLabelledDate(scan.labelledDates, el);
    const footer =
      (state & (IN_FOOTER | IN_ARTICLE)) === 0 &&
      (name === 'footer' || a.role === 'contentinfo' || FOOTER_NAME.test(`${a.class ?? ''} ${a.id ?? ''}`)) &&
      !hidden &&
      !isHidden(el);
    if (footer && scan.footers.push(el) > FOOTERS) scan.footers.shift();
    if (name === 'time' && a.datetime !== undefined) {
      // An unmarked one counts between the title and the body text (a masthead's date of the day comes before the title).
      const underTitle =
        scan.firstH1 !== null &&
        !bodyTextSeen &&
        (paragraphsAfterTitle === 0 || (paragraphsAfterTitle === 1 && inParagraph(el)));
      if (!markTime(scan.timeMarks, el, a.datetime) && underTitle && !skipped && !hidden && !isHidden(el))
        notePlainTime(plainTimes, el, a.datetime);
    }
    // hAtom's <abbr class="published" title="2025-12-12T17:30:00+00:00">, as older themes print it.
    else if (name === 'abbr' && a.title !== undefined && a.class !== undefined) markTime(scan.timeMarks, el, a.title);
    if (
      (name === 'a' || name === 'link') &&
      a.href !== undefined &&
      a.rel !== undefined &&
      REL_AUTHOR.test(a.rel) &&
      scan.relAuthors.length < REL_AUTHORS_MAX
    ) {
      scan.relAuthors.push({ href: a.href.trim(), text: name === 'a' ? textOf(el).replace(/\s+/g, ' ').trim() : '' });
    }
    // A top-level item has no itemprop; an item whose itemprop belongs to no item (Blogger's
    // itemprop="blogPost" without its Blog) is read as one too, as microdata parsers do.
    if (a.itemscope !== undefined && (a.itemprop === undefined || (state & IN_ITEM) === 0))
      scan.microdataRoots.push(el);
    if (a.typeof !== undefined || a.vocab !== undefined) scan.hasRdfa = true;
    if (!scan.hasMicroformats && a.class !== undefined && MICROFORMAT_ROOT.test(a.class)) scan.hasMicroformats = true;
    if (SKIP_TAGS.has(name)) continue;
    const nowHidden = hidden || isHidden(el);
    const nowInArticle = inArticle || name === 'article' || name === 'main';
    let nowSkipped = skipped;
    if (!skipped && (nowHidden || isBoilerplate(el, inArticle))) {
      scan.skipped.add(el);
      nowSkipped = true;
    }
    if (
      name === 'a' &&
      !nowSkipped &&
      !bodyTextSeen &&
      scan.authorLinks.length < AUTHOR_LINKS &&
      a.href !== undefined &&
      AUTHOR_HREF.test(a.href)
    )
      scan.authorLinks.push(el);
    if (!nowHidden && scan.byline === null && isBylineMarked(el)) {
      scan.byline = readByline(el, textOf);
      if (scan.byline !== null) scan.bylineElement = el;
    }
    switch (name) {
      case 'h1':
      case 'h2': {
        const text = textOf(el).trim();
        scan.headingTexts.push(text);
        if (name === 'h1') {
          scan.h1Texts.push(text);
          if (scan.firstH1 === null && !nowHidden && !nowSkipped) scan.firstH1 = el;
        }
        break;
      }
      case 'p':
      case 'pre':
        if (!nowSkipped) {
          const text = textOf(el);
          const length = text.trim().length;
          if (length >= BODY_TEXT_LENGTH) bodyTextSeen = true;
          if (scan.firstH1 !== null && name === 'p') paragraphsAfterTitle += 1;
          if (length >= 25) {
            const score = 1 + (text.split(',').length - 1) + Math.min(Math.floor(length / 100), 3);
            addScore(scan.scores, el.parent as Element | null, score);
            addScore(scan.scores, (el.parent?.parent ?? null) as Element | null, score / 2);
          }
        }
        break;
      case 'details':
        if (!nowHidden || a.open === undefined) scan.details.push(el);
        break;
      case 'dl':
        if (!nowSkipped) scan.definitionLists.push(el);
        break;
      case 'table':
        if (!nowSkipped) scan.tables.push(el);
        break;
      case 'article':
        if (!nowSkipped) articles.push(el);
        break;
      case 'main':
        if (!nowSkipped) mains.push(el);
        break;
    }
    if (a.role === 'main' && name !== 'main' && !nowSkipped) mains.push(el);
    if ((a.itemprop ?? '').split(/\s+/).includes('articleBody') && !nowSkipped) articleBodies.push(el);
    pushChildren(
      el,
      (nowHidden ? HIDDEN : 0) |
        (nowSkipped ? SKIPPED : 0) |
        (nowInArticle ? IN_ARTICLE : 0) |
        (a.itemscope !== undefined || (state & IN_ITEM) !== 0 ? IN_ITEM : 0) |
        (footer || (state & IN_FOOTER) !== 0 ? IN_FOOTER : 0),
    );
  }
  scan.explicitMain = [
    ...articleBodies,
    ...(articles.length === 1 ? articles : []),
    ...(mains.length === 1 ? mains : []),
  ];
  // A page of several articles (a blog's list of posts, each "by <a href=/author/...>") has no one author by its links.
  if (articles.length > 1) {
    scan.authorLinks = [];
    scan.labelledDates = { published: null, modified: null };
  } else scan.plainTimes = { published: plainTimes.published, modified: plainTimes.modified };
  return scan;
}
