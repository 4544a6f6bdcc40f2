import type { AnyNode, Element, Text } from 'domhandler';
import { cleanText } from './normalize.js';
import { isFullName, personNames } from './person-names.js';

/**
 * The byline: which element names the author, and the person's name read out of its text.
 * Pages write bylines for readers ("By Jane Doe | Staff Writer | March 3, 2024 at 6:01 am"); the
 * author fact wants the name alone, so labels, dates, roles and credentials are cut away, and a
 * byline that is only a date (some sites mark their dateline as a byline) names nobody.
 */

/**
 * Readability's byline class/id names, plus the token "by" (`<p class="by">`), a common short
 * byline convention, and "author" in German, Spanish, Portuguese, Polish, Italian (autor, autore)
 * and French (auteur), as themes in those languages name their classes; not "authoring",
 * "authority", "authorization" (an RFC's reference `id="ref-AUTHORING"` names no one).
 */
const BYLINE_NAME = /byline|author(?!i[nsztv])|dateline|writtenby|p-author|autor|auteur|verfasser|(?:^|\s)by(?:\s|$)/i;
/** Drupal's "Submitted by <name> on <date>" line (class submitted, node__submitted): a byline when it says "by". */
const SUBMITTED = /(?:^|[\s_-])submitted(?:$|[\s_-])/i;

function markedOnlyAsSubmitted(el: Element): boolean {
  const a = el.attribs;
  return (
    SUBMITTED.test(classAndId(el)) &&
    !(a.rel === 'author' || (a.itemprop ?? '').includes('author') || BYLINE_NAME.test(classAndId(el)))
  );
}

/**
 * The names an element goes by: its class and id, and the test and component names that
 * component-built pages give instead of meaningful classes (`data-testid="byline"`,
 * `data-component="byline-block"`, `data-qa="author-name"`).
 */
function classAndId(el: Element): string {
  const a = el.attribs;
  return `${a.class ?? ''} ${a.id ?? ''} ${a['data-testid'] ?? ''} ${a['data-component'] ?? ''} ${a['data-qa'] ?? ''}`;
}

/** Containers of other people's names: comments, related stories, sidebars (Readability drops them before it looks for a byline). */
const OTHER_PEOPLE = /comment|disqus|replies|related|sidebar|recommend/i;
/** ...unless the name also says content ("content has-sidebar"), as Readability's unlikely-candidate test. */
const LIKELY_CONTENT = /and|article|body|column|content|main|shadow/i;

/**
 * rel=author, itemprop~=author, or a class or id naming a byline (Readability's test, plus the
 * `by` token), outside comments, related stories and sidebars.
 */
export function isBylineMarked(el: Element): boolean {
  const a = el.attribs;
  if (!(
    a.rel === 'author' ||
    (a.itemprop ?? '').includes('author') ||
    BYLINE_NAME.test(classAndId(el)) ||
    SUBMITTED.test(classAndId(el))
  ))
    return false;
  for (let parent = el.parent; parent !== null && parent.type === 'tag'; parent = parent.parent) {
    const container = parent as Element;
    if (
      container.name === 'body' ||
      container.name === 'html' ||
      container.name === 'article' ||
      container.name === 'main'
    )
      continue;
    const p = (container.attribs.class ?? '') + ' ' + (container.attribs.id ?? '');
    if (OTHER_PEOPLE.test(p) && !LIKELY_CONTENT.test(p)) return false;
  }
  return true;
}

/** An element inside a byline that holds the author's own name rather than the whole line. */
function marksAuthorName(el: Element): boolean {
  const a = el.attribs;
  if (a.rel === 'author' || (a.itemprop ?? '').includes('author')) return true;
  return /author|autor|auteur|(?:^|[\s_-])(?:name|fn)(?:$|[\s_-])/i.test(classAndId(el));
}

/**
 * The author's name from a byline element, or null when it names nobody. The element's text must
 * be under 100 characters (Readability's limit). An [itemprop=name] inside it is the most precise
 * (Readability reads it too); else the one element inside marked as the author's name (rel=author,
 * a class such as byline__author or author-name) whose text is a name and not a role; else the
 * whole line, cleaned.
 */
export function readByline(el: Element, textOf: (node: AnyNode) => string): string | null {
  const text = textOf(el).trim();
  if (text.length === 0 || text.length >= 100) return null;
  if (markedOnlyAsSubmitted(el) && !/\bby\b/i.test(text)) return null;
  if (!el.children.some((child) => child.type === 'tag')) return cleanByline(text);
  const itemName = firstDescendant(
    el,
    (child) => (child.attribs.itemprop ?? '').includes('name') && textOf(child).trim() !== '',
  );
  if (itemName !== null) {
    const name = cleanByline(lineText(itemName));
    if (name !== null) return name;
  }
  const names = new Set<string>();
  forEachDescendant(el, (child) => {
    if (!marksAuthorName(child)) return false;
    const name = cleanByline(lineText(child));
    if (name === null) return false;
    names.add(name);
    return true;
  });
  if (names.size === 1) return [...names][0]!;
  // Co-authors each marked ("By <a class="author">Sam Keller</a> and <a class="author">Rita Moss</a>"): the names, not the line around them.
  if (names.size > 1 && [...names].every((name) => name.split(' ').length <= MAX_NAME_WORDS))
    return joinNames([...names]);
  return cleanByline(lineText(el));
}

/** "A", "A and B", "A, B and C": a list of names as a byline writes it (personNames splits it again). */
function joinNames(names: string[]): string {
  return names.length <= 2 ? names.join(' and ') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/** Words a person's name has at most; a longer "name" is a sentence (a bio, a label). */
const MAX_NAME_WORDS = 5;

/**
 * A line under the page's title that is a byline although nothing marks it: "By Jane Doe ·
 * March 3, 2024", "Von Klaus Meier". The group is the first character of the name, which must be
 * a capital ("By clicking ..." names no one).
 */
const BY_LINE =
  /^(?:(?:written|posted|published|words|story|text|reported)\s+)?(?:by|von|par|por|di|door|av|przez)\s*:?\s+(\S)/i;

/**
 * The byline right under the page's title when no element is marked as one: the first or second
 * element after the <h1> (or after the header that holds it) whose text starts "By" and a
 * capitalised word ("By Joan Whitaker · December 2, 2023"), read as a marked byline is. Elements
 * `shown` refuses (hidden, boilerplate) are passed over. Null when body text comes first, or the
 * line names nobody ("By clicking ..." starts lower case) or is not a list of full names. The
 * line itself is read when under 100 characters, as a marked byline is.
 */
export function bylineAfterTitle(
  h1: Element,
  textOf: (node: AnyNode) => string,
  shown: (el: Element) => boolean,
): { name: string; element: Element } | null {
  let anchor: Element | null = h1;
  for (let level = 0; level < 3 && anchor !== null; level += 1) {
    let sibling = nextElement(anchor);
    for (let checked = 0; checked < 2 && sibling !== null; checked += 1, sibling = nextElement(sibling)) {
      if (!shown(sibling)) continue;
      const text = textOf(sibling).trim();
      const nameStart = BY_LINE.exec(text)?.[1] ?? AUTHOR_LABEL_LINE.exec(text)?.[1] ?? datedByLineNameStart(text);
      if (nameStart === null || !/\p{Lu}/u.test(nameStart)) {
        if (text.length >= BODY_TEXT_LENGTH) return null;
        continue;
      }
      const name = readByline(sibling, textOf);
      // Full names only: "By Train to Paris" or "Von Berlin nach Hamburg" (a dek) names no one.
      if (name === null || !personNames(name).every(isFullName)) return null;
      return { name, element: sibling };
    }
    const parent: AnyNode | null = anchor.parent;
    anchor =
      parent !== null && parent.type === 'tag' && !CONTENT_ROOTS.has((parent as Element).name)
        ? (parent as Element)
        : null;
  }
  return null;
}

/** "Author Jane Roe", "Autor: Klaus Meier": a label and a name, as a theme prints them side by side under the title. */
const AUTHOR_LABEL_LINE = /^(?:authors?|autor(?:in)?|autore|auteur)\s*:?\s+(\S)/i;
/** The English label without its colon ("Author Jane Roe"); with a colon, any language's is BY_PREFIX's. */
const AUTHOR_LABEL = /^(?:Authors?|AUTHORS?)\s+(?=\p{Lu})/u;

/** "Published" in German, French, Spanish, Italian, Portuguese and Dutch, as a date's label (regex alternatives). */
const PUBLISHED_WORDS = 'veröffentlicht|publié|publicado|pubblicato|gepubliceerd|geplaatst';
/** "Updated" in those languages. */
const UPDATED_WORDS = 'aktualisiert|geändert|mis à jour|modifié|actualizado|aggiornato|atualizado|bijgewerkt';
/** The word before a date: "on", and "am", "le", "el", "il", "op", "em" in those languages. */
const DATE_PREPOSITIONS = 'on|am|le|el|il|op|em';

/**
 * "Posted on March 3, 2024 by Jane Roe", as classic blog themes print the line under a post's
 * title, also in German, French, Spanish, Italian, Portuguese and Dutch ("Veröffentlicht am 3.
 * März 2024 von Klaus Meier", "Publié le 3 mars 2024 par Claire Dubois").
 */
const DATED_BY_LINE = new RegExp(
  `^(?:(?:posted|published|written|updated|last\\s+updated|${PUBLISHED_WORDS})\\s+)?(?:(?:${DATE_PREPOSITIONS})\\s+)?(.{4,40}?)\\s+(?:by|von|par|por|di|door|av|przez)\\s+(\\S)`,
  'i',
);

/** The first character of the name in a line that is a date and then "by" a name, or null when the line is not one. */
function datedByLineNameStart(text: string): string | null {
  const match = DATED_BY_LINE.exec(text);
  if (match === null || match[1]!.replace(DATE_PARTS, '').replace(/[\s,.|·–—-]+/g, '') !== '') return null;
  return match[2]!;
}

const CONTENT_ROOTS = new Set(['body', 'html', 'main', 'article']);
/** Characters from which a paragraph (or a line under the title) is body text rather than a kicker, a dek or a date: bylines come before it. */
export const BODY_TEXT_LENGTH = 80;

/**
 * The byline of a page that marks none, from the first link to an author's page met before the
 * body text (`<a href="/author/jane-roe">Jane Roe</a>`, as themes with utility classes print it):
 * its text, when it is a full name. Null when no such link names a person.
 */
export function bylineFromAuthorLinks(
  links: readonly Element[],
  textOf: (node: AnyNode) => string,
): { name: string; element: Element } | null {
  for (const link of links) {
    const text = textOf(link).trim();
    if (text.length === 0 || text.length >= 100) continue;
    const name = cleanByline(lineText(link));
    if (name !== null && isFullName(name)) return { name, element: link };
  }
  return null;
}

function nextElement(el: Element): Element | null {
  for (let node = el.next; node !== null; node = node.next) if (node.type === 'tag') return node as Element;
  return null;
}

/** Elements whose text a byline's reader keeps apart: a date in <time>, a line break, a block. */
const SEPARATING = new Set([
  'time',
  'br',
  'div',
  'p',
  'li',
  'ul',
  'ol',
  'address',
  'section',
  'header',
  'footer',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'dd',
  'dt',
  'td',
  'th',
]);

/**
 * The text of a byline with " · " where a <time>, <br> or block element begins or ends, so a date
 * written right after the name ("Rita Moss<time>April 4, 2024</time>") is a part of its own that
 * cleanByline drops, not glued to the name ("Rita MossApril 4"). Script and style are left out.
 */
function lineText(root: Element): string {
  const SEPARATOR = null;
  let out = '';
  const stack: Array<AnyNode | null> = [...root.children].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node === SEPARATOR) {
      out += ' · ';
      continue;
    }
    if (node.type === 'text') {
      out += (node as Text).data;
      continue;
    }
    if (node.type !== 'tag') continue;
    const el = node as Element;
    if (el.name === 'script' || el.name === 'style') continue;
    if (SEPARATING.has(el.name)) {
      out += ' · ';
      stack.push(SEPARATOR);
    }
    for (let i = el.children.length - 1; i >= 0; i -= 1) stack.push(el.children[i]!);
  }
  return out;
}

/**
 * The people a byline links, by name (as cleanByline reads the link's text): "By <a
 * href="/people/jane">Jane Roe</a>" links Jane Roe to /people/jane. A link whose text is no name
 * ("Follow", a date) and a href two names share link nobody.
 */
export function bylineLinks(el: Element, textOf: (node: AnyNode) => string): Map<string, string> {
  const links = new Map<string, string>();
  const hrefs = new Map<string, number>();
  const visit = (a: Element): void => {
    const href = a.name === 'a' ? a.attribs.href?.trim() : undefined;
    if (href === undefined || href === '') return;
    const name = cleanByline(textOf(a));
    if (name === null || links.has(name)) return;
    links.set(name, href);
    hrefs.set(href, (hrefs.get(href) ?? 0) + 1);
  };
  visit(el);
  forEachDescendant(el, (child) => {
    visit(child);
    return false;
  });
  for (const [name, href] of links) if (hrefs.get(href)! > 1) links.delete(name);
  return links;
}

/** The first element below `root` (document order) that `test` accepts. */
function firstDescendant(root: Element, test: (el: Element) => boolean): Element | null {
  let found: Element | null = null;
  forEachDescendant(root, (el) => {
    if (found === null && test(el)) found = el;
    return found !== null;
  });
  return found;
}

/**
 * Visits the elements below `root` in document order with an explicit stack (no recursion, so no
 * nesting depth exhausts the call stack); `visit` returning true skips that element's subtree.
 */
function forEachDescendant(root: Element, visit: (el: Element) => boolean): void {
  const stack: AnyNode[] = [...root.children].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type !== 'tag') continue;
    const el = node as Element;
    if (visit(el)) continue;
    for (let i = el.children.length - 1; i >= 0; i -= 1) stack.push(el.children[i]!);
  }
}

/** Month names in German, French, Spanish, Italian, Portuguese and Dutch, by number (English ones are read by their first three letters). */
const FOREIGN_MONTHS: Readonly<Record<string, number>> = {
  januar: 1,
  jänner: 1,
  februar: 2,
  märz: 3,
  mai: 5,
  juni: 6,
  juli: 7,
  oktober: 10,
  dezember: 12,
  janvier: 1,
  février: 2,
  mars: 3,
  avril: 4,
  juin: 6,
  juillet: 7,
  août: 8,
  septembre: 9,
  octobre: 10,
  novembre: 11,
  décembre: 12,
  enero: 1,
  febrero: 2,
  marzo: 3,
  abril: 4,
  mayo: 5,
  junio: 6,
  julio: 7,
  agosto: 8,
  septiembre: 9,
  setiembre: 9,
  octubre: 10,
  noviembre: 11,
  diciembre: 12,
  gennaio: 1,
  febbraio: 2,
  aprile: 4,
  maggio: 5,
  giugno: 6,
  luglio: 7,
  settembre: 9,
  ottobre: 10,
  dicembre: 12,
  janeiro: 1,
  fevereiro: 2,
  março: 3,
  maio: 5,
  junho: 6,
  julho: 7,
  setembro: 9,
  outubro: 10,
  dezembro: 12,
  januari: 1,
  februari: 2,
  maart: 3,
  mei: 5,
  augustus: 8,
};
/** A month's name: the other languages' first (longest), so "marzo" is not read as "mar". */
const MONTH = `(?:${Object.keys(FOREIGN_MONTHS)
  .sort((a, b) => b.length - a.length)
  .join(
    '|',
  )}|jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\\.?`;
/** A day of the month: "3", "3rd", "3." (German), "1er" (French), "1º". */
const DAY = '\\d{1,2}(?:st|nd|rd|th|er|º|ª)?\\.?';
/** Between the day and the month ("3 de marzo"), and between the month and the year ("marzo de 2024", "March 3, 2024"). */
const DAY_TO_MONTH = '\\s+(?:de\\s+)?';
const MONTH_TO_YEAR = '(?:,?\\s+|\\s+de\\s+)';
/** Dates, times and relative times as bylines write them. A month name counts only next to a number ("April Smith" is a name). */
const DATE_PARTS = new RegExp(
  [
    `\\b${MONTH}\\s+${DAY}(?:,?\\s+\\d{4})?(?!\\d)`,
    `\\b${DAY}${DAY_TO_MONTH}${MONTH}(?:${MONTH_TO_YEAR}\\d{4})?(?![\\wäéèûçô])`,
    `\\b${MONTH},?\\s+\\d{4}\\b`,
    '\\b\\d{4}-\\d{1,2}-\\d{1,2}(?:[T ]\\d{1,2}:\\d{2}(?::\\d{2})?(?:\\.\\d+)?(?:Z|[+-]\\d{2}:?\\d{2})?)?',
    '\\b\\d{1,2}[./]\\d{1,2}[./]\\d{2,4}\\b',
    '\\b\\d{1,2}:\\d{2}(?::\\d{2})?(?:\\s*[ap]\\.?m\\.?)?(?:\\s+(?:UTC|GMT|[ECMP][SD]T|BST|CES?T|IST|JST|AE[SD]T)\\b)?',
    '\\b(?:1[89]|20)\\d{2}\\b',
    '\\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\\b',
    '\\b\\d+\\s+(?:seconds?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?)\\s+ago\\b',
    '\\b\\d+\\s*(?:minutes?|mins?)\\s+read\\b',
    '\\b(?:yesterday|today|just now)\\b',
  ].join('|'),
  'gi',
);

const MONTHS: Readonly<Record<string, number>> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  oct: 10,
  nov: 11,
  dec: 12,
};

/** A month's number from its name in any of the languages MONTH reads. */
function monthNumber(name: string): number {
  const lower = name.toLowerCase().replace(/\.$/, '');
  return FOREIGN_MONTHS[lower] ?? MONTHS[lower.slice(0, 3)]!;
}
/** A whole date as bylines write it out: "March 3, 2024", "3 March 2024", "Mar. 3rd, 2024", "2024-03-03" (numeric d/m orders are ambiguous: never). */
const WRITTEN_DATE = new RegExp(
  [
    `\\b(?<m1>${MONTH})\\s+(?<d1>\\d{1,2})(?:st|nd|rd|th)?,?\\s+(?<y1>\\d{4})\\b`,
    `\\b(?<d2>\\d{1,2})(?:st|nd|rd|th|er|º|ª)?\\.?${DAY_TO_MONTH}(?<m2>${MONTH})${MONTH_TO_YEAR}(?<y2>\\d{4})\\b`,
    '\\b(?<y3>\\d{4})-(?<m3>\\d{2})-(?<d3>\\d{2})\\b',
  ].join('|'),
  'gi',
);
/** Words just before a date that make it the update rather than the publication ("Updated on", "aktualisiert:"). */
export const UPDATE_LABEL = new RegExp(
  `(?:updated|modified|edited|revised|${UPDATED_WORDS})\\W*(?:(?:${DATE_PREPOSITIONS})\\W*)?$`,
  'i',
);
/** "Published" and "updated" in other languages, with the word before a date, left before a name once the date is cut ("Veröffentlicht am ... von Klaus Meier"). */
const FOREIGN_DATE_LABEL = new RegExp(
  `^(?:${PUBLISHED_WORDS}|${UPDATED_WORDS})(?:\\s+(?:${DATE_PREPOSITIONS}))?(?:\\s*:)?(?=\\s|$)\\s*`,
  'i',
);

/**
 * The dates a byline line writes out, as YYYY-MM-DD: the first as the publication, the first
 * after "Updated" as the update ("By Jane Roe | March 3, 2024 | Updated March 5, 2024").
 */
export function bylineDates(line: string): { published: string | null; modified: string | null } {
  const out: { published: string | null; modified: string | null } = { published: null, modified: null };
  for (const match of line.slice(0, 300).matchAll(WRITTEN_DATE)) {
    const g = match.groups!;
    const month = g.m3 !== undefined ? Number(g.m3) : monthNumber((g.m1 ?? g.m2)!);
    const date = calendarDate(Number(g.y1 ?? g.y2 ?? g.y3), month, Number(g.d1 ?? g.d2 ?? g.d3));
    if (date === null) continue;
    if (UPDATE_LABEL.test(line.slice(Math.max(0, match.index! - 30), match.index))) out.modified ??= date;
    else out.published ??= date;
  }
  return out;
}

/** A label and a written date, and nothing else: "Published on: June 25, 2024", "Updated 5 March 2024", "Veröffentlicht am 3. März 2024". */
const LABELLED_DATE_LINE = new RegExp(
  `^\\s*(?:published|posted|updated|last\\s+updated|modified|date|${PUBLISHED_WORDS}|${UPDATED_WORDS})(?:\\s+(?:${DATE_PREPOSITIONS}))?\\s*:?\\s*`,
  'i',
);

/** The day a line that is only a label and a written date states ("Published on: June 25, 2024"), or null for any other line. */
export function labelledDate(line: string): { published: string | null; modified: string | null } | null {
  const label = LABELLED_DATE_LINE.exec(line);
  if (label === null || line.length > 80) return null;
  const rest = line.slice(label[0].length);
  if (rest.replace(WRITTEN_DATE, '').replace(/[\s,.|·•–—-]+/g, '') !== '') return null;
  const dates = bylineDates(line);
  return dates.published === null && dates.modified === null ? null : dates;
}

/** YYYY-MM-DD when the day exists (no February 30th), else null. */
function calendarDate(year: number, month: number, day: number): string | null {
  const time = Date.UTC(year, month - 1, day);
  const d = new Date(time);
  if (year < 1900 || d.getUTCFullYear() !== year || d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day)
    return null;
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** An abbreviated weekday and its comma before a date's digits (a name such as "Sun Li" has no comma and digits after it). */
const WEEKDAY_BEFORE_DATE = /\b(?:mon|tues?|wed|thu(?:rs?)?|fri|sat|sun)\.?,\s*(?=\d)/gi;

/** Words that label a date or a byline, left over around the parts cut out. */
const LABEL =
  /^(?:(?:last\s+)?(?:updated|modified|published|posted|created|written|filed|date|on|at|in|and)\b\s*:?\s*)+|(?:\s*\b(?:(?:last\s+)?(?:updated|modified|published|posted|created|filed|date|on|at|and|follow|following))\s*:?)+$/i;
/**
 * "By" and its neighbours in other languages. English "By" in any case; the others (also names:
 * "Von Miller", "Di Stefano") only lower case or when a full name follows. An "Author:" label in
 * other languages and scripts too ("Автор:", "作者：", "文・", "بقلم:").
 */
const BY_PREFIX =
  /^(?:(?:written|posted|published|submitted|words|story|text|reported|reporting|opinion|analysis|commentary|review|interview|essay|column|perspective|feature)\s+)?by\b\s*[:\-–—]?\s*|^(?:authors?|autor(?:in)?|auteur|autore|autor|words|text|story|автор|作者|记者|記者|著者|筆者|文|بقلم|كتب|yazar|författare|forfatter|kirjoittaja|szerző|autorka)\s*[:：・]\s*/i;
const FOREIGN_BY = /^(von|par|por|di|door|av|przez)\s*[:\-]?\s+/i;
/** Credits that follow the author and are not authors ("Edited by ...", "Photos by ..."). */
const OTHER_CREDITS =
  /\b(?:edited|reviewed|fact[- ]checked|illustrat(?:ed|ions?)|photos?|photographs?|photography|graphics|additional\s+reporting|with\s+reporting)\s+by\b.*$/i;
/** A role or job title standing for itself ("Staff Writer", "Seattle Times business reporter", "Editor at Large"). */
const ROLE =
  /(?:^|\s)(?:reporters?|correspondents?|editors?|writers?|columnists?|contributors?|photographers?|producers?|journalists?|critics?|interns?|bloggers?|analysts?|anchors?|staff(?:\s+writer)?|editor-in-chief)(?:\s+(?:at|for|of|with|in)\b.*)?$/i;
/**
 * An outlet after a reporter's name, as a later part: its initials in capitals ("Jane Roe, CNN"),
 * a name that starts "The" ("Jane Roe, The Washington Post"; a person's name does not), or a
 * "Special to ..." credit.
 */
const OUTLET_PART = /^(?:\p{Lu}{2,6}|The\s+\p{Lu}.*|Special\s+to\s+.+)$/u;
/** A reporter writing for an outlet, in one part: "Jane Roe for The Guardian" is Jane Roe. */
const FOR_OUTLET = /^(.+?)\s+for\s+(?:the\s+)?\p{Lu}[\p{L}\p{N}\s.&'’-]*$/u;
/** News agencies credited beside a reporter ("Jane Roe, Associated Press"): an organization, not a second author. */
const WIRE_AGENCY =
  /^(?:the\s+)?(?:associated\s+press|ap|reuters|agence\s+france[- ]presse|afp|bloomberg(?:\s+news)?|press\s+association|pa\s+media|dpa|ansa|efe|kyodo(?:\s+news)?|xinhua|upi|united\s+press\s+international|cnn\s+wire|canadian\s+press|aap|australian\s+associated\s+press)$/i;
/** Academic and professional credentials written after a name ("Brenda Goodman, MA"); Jr. and Sr. are part of the name. */
const CREDENTIAL =
  /^(?:M\.?A\.?|M\.?S\.?|MSc|M\.?D\.?|Ph\.?\s?D\.?|DPhil|R\.?N\.?|MPH|D\.?O\.?|DDS|DVM|DMD|BSN|MSN|MBA|J\.?D\.?|Esq\.?|CPA|CFA|CFP|RD|RDN|LCSW|PharmD|FACP|FRCP|FACS|B\.?A\.?|BSc|MFA|MSW|MEd|EdD)$/;
/** An e-mail address, which a byline may print beside the name ("Jane Roe (jane@example.com)"); RSS writes "jane@example.com (Jane Roe)". */
const EMAIL = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g;
/** A social handle after a name ("Jane Roe @janeroe"); a byline that is only a handle keeps it. */
const HANDLE = /(?:^|\s)@[\w.]{2,30}(?=\s|$)/g;
/**
 * A reporter's role written after the name in Korean and Japanese ("홍길동 기자", "山田太郎 記者")
 * or before it in Chinese ("本报记者 张三"): the role goes, the name stays.
 */
const CJK_ROLE_AFTER =
  /\s*(?:선임기자|수석기자|객원기자|기자|특파원|논설위원|편집위원|記者|特派員|編集委員|论说员|特约记者)$/u;
const CJK_ROLE_BEFORE = /^(?:本报|本報|新华社|新華社)?(?:特约)?(?:记者|記者|通讯员|通訊員)\s+/u;
/** Separators inside a byline, kept for rejoining what stays. */
const SEPARATORS = /(\s*[|•·;]\s*|\s+[–—-]\s+|,\s*)/;

/**
 * A person's name from a byline: "By Jane Doe | Staff Writer | March 3, 2024" -> "Jane Doe",
 * "Brenda Goodman, MA" -> "Brenda Goodman", "Jong, Michiel de" stays. Null when nothing
 * name-like is left (a dateline, "Last Updated: January 7, 2025"), for a url, or when longer than
 * `maxLength` (a byline element's line; declared author lists may be longer).
 */
export function cleanByline(byline: string, maxLength = 80): string | null {
  let text = cleanText(byline);
  if (text.length > maxLength + 100) return null;
  // A weekday's abbreviation before a date ("on Tue, 03/05/2024") goes with the date.
  text = text.replace(WEEKDAY_BEFORE_DATE, ' ');
  text = text.replace(OTHER_CREDITS, '');
  if (text === '' || /^https?:\/\//i.test(text)) return null;
  text = withoutContacts(text);
  const parts = text.split(SEPARATORS);
  const kept: string[] = [];
  for (let i = 0; i < parts.length; i += 2) {
    const part = cleanPart(parts[i]!);
    if (part === null || (kept.length > 0 && OUTLET_PART.test(part))) continue;
    if (kept.length > 0) kept.push(parts[i - 1]!.trim() === ',' || parts[i - 1]!.includes(',') ? ', ' : parts[i - 1]!);
    kept.push(part);
  }
  text = cleanText(kept.join(''));
  if (text === '' || !/\p{L}/u.test(text) || text.length > maxLength) return null;
  return text;
}

/**
 * A byline without the e-mail addresses and handles printed beside the name, and without the
 * brackets that held them; a line that is nothing else keeps them (a handle may be all a page
 * says of its author).
 */
function withoutContacts(text: string): string {
  if (!text.includes('@')) return text;
  const rest = cleanText(
    text
      .replace(EMAIL, ' ')
      .replace(HANDLE, ' ')
      .replace(/\(\s*\)|\[\s*\]|<\s*>/g, ' '),
  );
  if (!/\p{L}/u.test(rest)) return text;
  // "(Jane Roe)" left of RSS's "jane@example.com (Jane Roe)".
  const bracketed = /^\((.+)\)$/.exec(rest);
  return bracketed === null ? rest : bracketed[1]!.trim();
}

/**
 * The lower-case word some languages write before a date ("le 3 mars", "am 3. März", "el 3 de
 * marzo"), left at the end of a part once the date is cut. Lower case only: "Le Pen" is a name.
 */
const DATE_ARTICLE = /(?:^|\s)(?:le|am|el|il|op|em|du|den|dia)$/;

/** One separated part of a byline without its dates, labels and "By", or null when it is not (part of) a name. */
function cleanPart(raw: string): string | null {
  const withoutDates = raw.replace(DATE_PARTS, ' ');
  let part = withoutDates === raw ? raw : cleanText(withoutDates).replace(DATE_ARTICLE, '');
  for (let previous = ''; previous !== part;) {
    previous = part;
    part = cleanText(part).replace(LABEL, '').replace(FOREIGN_DATE_LABEL, '').replace(BY_PREFIX, '');
    const foreign = FOREIGN_BY.exec(part);
    if (foreign !== null) {
      const rest = part.slice(foreign[0].length);
      if (foreign[1] === foreign[1]!.toLowerCase() || rest.split(' ').length >= 2) part = rest;
    }
    part = part
      .replace(/^[\s:,.;|()–—-]+|[\s:,;|(–—-]+$/g, '')
      .replace(CJK_ROLE_AFTER, '')
      .replace(CJK_ROLE_BEFORE, '')
      .replace(AUTHOR_LABEL, '');
  }
  // A sentence's full stop goes; an initial's or an abbreviation's stays ("John Q.", "Jr.").
  if (part.endsWith('.') && !/(?:^|\s)(?:\p{Lu}|Jr|Sr|Inc|Ltd|Co|Corp|Esq)\.$/u.test(part))
    part = part.slice(0, -1).trimEnd();
  if (part === '' || !/\p{L}/u.test(part) || CREDENTIAL.test(part) || ROLE.test(part) || WIRE_AGENCY.test(part))
    return null;
  const writer = FOR_OUTLET.exec(part);
  return writer !== null && personNames(writer[1]!).every(isFullName) ? writer[1]! : part;
}
