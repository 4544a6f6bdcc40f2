import type { AnyNode, Element, Text } from 'domhandler';
import { cleanText } from './normalize.js';

/**
 * The website's name where a page states it outside structured data: a declared name
 * (og:site_name, application-name) without its tagline, or the part of the <title> that is not
 * the page's own title ("Owls at night | Bird Notes").
 */

/** Separators between a name and a tagline, or between the parts of a <title>. */
const PART_SEPARATOR =
  /\s+[|\-\u2013\u2014\u00b7\u2022»/]\s+|\s+::\s+|\s*\uff5c\s*|(?<=[^\x00-\x7f])_(?=[^\x00-\x7f])/g;
/** A cheap first test: a title without any of these characters has no site part. */
const ANY_SEPARATOR = /[|\-\u2013\u2014\u00b7\u2022»/:_\uff5c]/;
/** Hierarchical separators: a breadcrumb title ("Bird Notes » Owls") starts with the site. */
const HIERARCHICAL = /^\s+[»/]\s+$/;
/** A title part that names a page, never a site. */
const GENERIC = /^(?:home(?:\s?page)?|index|welcome|untitled|start|(?:page|part|chapter|step)\s+\d+)$/i;
const MAX_WORDS = 6;
const MAX_LENGTH = 50;

/**
 * A declared site name without a tagline after a separator ("Yahoo News - Latest News &
 * Headlines" -> "Yahoo News"): the first part stays when the rest is two words or more. Null when
 * nothing name-like is left.
 */
export function cleanSiteName(value: string): string | null {
  const text = cleanText(value);
  const parts = splitParts(text);
  if (
    parts.length > 1 &&
    parts
      .slice(1)
      .map((part) => part.text)
      .join(' ')
      .split(' ').length >= 2 &&
    plausibleName(parts[0]!.text)
  )
    return parts[0]!.text;
  return /\p{L}|\p{N}/u.test(text) ? text : null;
}

interface TitlePart {
  text: string;
  /** The separator before this part ('' for the first). */
  separator: string;
}

function splitParts(title: string): TitlePart[] {
  const parts: TitlePart[] = [];
  let start = 0;
  let separator = '';
  for (const match of title.matchAll(PART_SEPARATOR)) {
    parts.push({ text: title.slice(start, match.index).trim(), separator });
    separator = match[0];
    start = match.index + match[0].length;
  }
  parts.push({ text: title.slice(start).trim(), separator });
  return parts.filter((part) => part.text !== '');
}

/**
 * The site's name from the page's <title>, or null. When the title is the page's own title
 * (og:title, dc:title, an <h1>: `pageTitles`) plus something before or after a separator (" | ",
 * " - ", " — ", " · ", ": "), that something is the site (its outer part when it has several:
 * "Owls | Nature | Bird Notes"). Otherwise the last part after a separator, or the first when the
 * separators are hierarchical (" » ", " / ") or the first part and not the last matches the
 * host name ("eHow | How to ..." on www.ehow.com). A part is a site name only when it is short
 * (at most 6 words, 50 characters), not a generic page word (Home, Page 2) and not glued into a
 * word of the rest ("draft-x-remotestorage-04 - remoteStorage"). A logo <h1> naming the site
 * ("V8") does not stop it.
 */
export function siteNameFromTitle(
  rawTitle: string | null,
  pageTitles: readonly string[],
  host: string | null,
): string | null {
  if (rawTitle === null || !ANY_SEPARATOR.test(rawTitle)) return null;
  const title = cleanText(rawTitle);
  const own = pageTitles.map((t) => cleanText(t).toLowerCase()).filter((t) => t !== '' && t !== title.toLowerCase());
  const confirmed = confirmedByPageTitle(title, own);
  if (confirmed !== undefined) return acceptable(confirmed.name, confirmed.rest) ? confirmed.name : null;
  const parts = splitParts(title);
  if (parts.length < 2) return null;
  const first = parts[0]!.text;
  const last = parts[parts.length - 1]!.text;
  const hierarchical = HIERARCHICAL.test(parts[1]!.separator);
  const useFirst = hierarchical || (matchesHost(first, host) && !matchesHost(last, host));
  const pick = useFirst ? first : last;
  const rest = (useFirst ? parts.slice(1) : parts.slice(0, -1)).map((part) => part.text).join(' ');
  return acceptable(pick, rest) ? pick : null;
}

/**
 * The site part when the title starts or ends with one of the page's own titles and a separator
 * (a colon counts here too: "Bird Notes: Owls at night" with og:title "Owls at night"); undefined
 * when no own title frames the <title>.
 */
function confirmedByPageTitle(title: string, own: string[]): { name: string; rest: string } | undefined {
  const lower = title.toLowerCase();
  // Longest first, and the framing title must be at least as long as the site part: a logo <h1>
  // ("Bird Notes") also frames "Owls at night | Bird Notes", from the other side.
  for (const page of [...own].sort((a, b) => b.length - a.length)) {
    let name: string | null = null;
    if (lower.startsWith(page)) {
      const rest = /^\s*(?:[|\-\u2013\u2014\u00b7\u2022»/:]|::|\uff5c|_)\s*(.+)$/.exec(title.slice(page.length));
      if (rest !== null) name = outerPart(rest[1]!, 'last');
    } else if (lower.endsWith(page)) {
      const rest = /^(.+?)\s*(?:[|\-\u2013\u2014\u00b7\u2022«/:]|::|\uff5c|_)\s*$/.exec(
        title.slice(0, title.length - page.length),
      );
      if (rest !== null) name = outerPart(rest[1]!, 'first');
    }
    if (name !== null && name.length <= page.length) return { name, rest: page };
  }
  return undefined;
}

function outerPart(text: string, which: 'first' | 'last'): string | null {
  const parts = splitParts(text);
  const part = which === 'first' ? parts[0] : parts[parts.length - 1];
  return part === undefined ? null : part.text;
}

function acceptable(name: string, rest: string): boolean {
  if (!plausibleName(name) || GENERIC.test(name) || isTagline(name)) return false;
  // A name glued into an identifier of the rest ("draft-x-remotestorage-04 - remoteStorage") is the page's subject, not a site.
  const haystack = rest.toLowerCase();
  const needle = name.toLowerCase();
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + 1)) {
    if (isWordChar(haystack[at - 1]) || isWordChar(haystack[at + needle.length])) return false;
  }
  return true;
}

/** Short words a name keeps in lower case ("Careers at Loop", "Cuisine de Mamie", "Diario del Sur"). */
const NAME_FUNCTION_WORDS = new Set([
  'a',
  'an',
  'and',
  'at',
  'by',
  'for',
  'in',
  'of',
  'on',
  'the',
  'to',
  'de',
  'del',
  'della',
  'des',
  'di',
  'da',
  'do',
  'dos',
  'das',
  'du',
  'la',
  'le',
  'les',
  'von',
  'van',
  'der',
  'den',
  'y',
  'e',
  'et',
  'und',
  'och',
  'og',
]);

/**
 * A tagline or a sentence rather than a name: three words or more, one of them after the first a
 * lower-case word that is no function word ("Fast widgets for Node", "The best kettles in
 * town"). A home page's title is often its name and such a line ("Widgetry - Fast widgets for Node").
 */
function isTagline(name: string): boolean {
  const words = name.split(/\s+/);
  return (
    words.length >= 3 &&
    words
      .slice(1)
      .some(
        (word) => /^\p{Ll}/u.test(word) && !NAME_FUNCTION_WORDS.has(word.toLowerCase()) && !SITE_KIND_WORDS.has(word),
      )
  );
}

/** Lower-case words that say what kind of site a name is ("Requestor 2.31.0 documentation", "Acme help center"), not a tagline's. */
const SITE_KIND_WORDS = new Set([
  'documentation',
  'docs',
  'wiki',
  'blog',
  'forum',
  'forums',
  'community',
  'help',
  'center',
  'centre',
  'support',
  'store',
  'shop',
  'news',
]);

function isWordChar(char: string | undefined): boolean {
  return char !== undefined && (char === '_' || char === '-' || /[\p{L}\p{N}]/u.test(char));
}

function plausibleName(name: string): boolean {
  return (
    name.length > 0 &&
    name.length <= MAX_LENGTH &&
    name.split(/\s+/).length <= MAX_WORDS &&
    /\p{L}/u.test(name) &&
    !/^\d[\d\s.,:/-]*$/.test(name)
  );
}

/** Text as a host name could spell it: accents folded, lower case, letters and digits only ("Bäckerei Sonnenkorn" -> "backereisonnenkorn"). */
function folded(text: string): string {
  return text
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
}

/** True when the name, letters and digits only, is one of the host's labels or contains or is contained in one (4+ characters). */
function matchesHost(name: string, host: string | null): boolean {
  if (host === null) return false;
  const compact = folded(name);
  if (compact.length < 2) return false;
  return host
    .toLowerCase()
    .replace(/^www\d*\./, '')
    .split('.')
    .some(
      (label) =>
        label === compact ||
        (label.length >= 4 && compact.includes(label)) ||
        (compact.length >= 4 && label.includes(compact)),
    );
}

/**
 * The website's name as its logo states it: the alt text of the image in a link to the home page
 * of the page's own host ("WebMD: Better information. Better health." -> "WebMD", "eHow Logo" ->
 * "eHow"), without the word logo and the tagline after a separator or a colon. Null when the link
 * goes elsewhere or no name-like text is left (an image file name, a page word).
 */
export function siteNameFromLogo(logo: { alt: string; href: string } | null, baseUrl: string): string | null {
  if (logo === null || !onOwnHost(logo.href, baseUrl)) return null;
  const alt = cleanText(logo.alt.replace(/\blogo\b/gi, ' '));
  if (/\.(?:png|jpe?g|gif|svg|webp)$/i.test(alt)) return null;
  const name = cleanText((outerPart(alt, 'first') ?? alt).split(/:\s/)[0]!);
  return plausibleName(name) && !GENERIC.test(name) ? name : null;
}

/** Whether `href`, resolved against the page's url, stays on the page's host. */
function onOwnHost(href: string, baseUrl: string): boolean {
  try {
    return new URL(href, baseUrl).hostname === hostOf(baseUrl);
  } catch {
    return false;
  }
}

/** The host name of a url, or null when it does not parse. */
export function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname;
  } catch {
    return null;
  }
}

/**
 * The website's name as a text logo states it: the text of the first link to the root of the
 * page's own host that is a name and not a page word ("Northfield Nature Club", not "Home"), as
 * blog and small-site themes print their name in the header. Null when none is.
 */
export function siteNameFromHomeLink(
  links: ReadonlyArray<{ text: string; href: string }>,
  baseUrl: string,
): string | null {
  for (const link of links) {
    if (!onOwnHost(link.href, baseUrl)) continue;
    const name = cleanText(outerPart(link.text, 'first') ?? link.text);
    if (plausibleName(name) && !GENERIC.test(name) && !HOME_WORDS.test(name) && !LANGUAGE_CODE.test(name)) return name;
  }
  return null;
}

/** Link texts that lead home without naming the site. */
const HOME_WORDS =
  /^(?:home|homepage|front page|back(?: to (?:home|start|top))?|start(?:seite)?|accueil|inicio|startsida|forside|главная|首页|ホーム|skip to (?:main )?content|menu|main menu|logo|site logo)$/i;
/** A language switcher's link to the root ("EN", "de", "pt-BR"). */
const LANGUAGE_CODE = /^[a-z]{2}(?:[-_][a-z]{2})?$/i;

/** A home page's path: the root, or an index page right under it. */
const HOME_PATH = /^\/(?:(?:index|default|home)(?:\.[a-z]{2,5})?)?$/i;
/** A greeting before the name in a home page's title. */
const WELCOME = /^(?:welcome to|willkommen bei|bienvenue (?:sur|chez|à)|bienvenido a|benvenuti (?:su|da|a))\s+/i;

/**
 * The website's name as its home page's <title> gives it, when the page is the home page (the
 * root of its host, or an index page right under it): the title, or its first part before a
 * separator ("Bird Notes | Daily birding since 2009" -> "Bird Notes"), without a greeting
 * ("Welcome to Bird Notes"). Null on any other page, or when that part is no name (a page word,
 * a tagline).
 */
export function siteNameFromHomePage(rawTitle: string | null, pageUrl: string): string | null {
  if (rawTitle === null) return null;
  let path: string;
  try {
    path = new URL(pageUrl).pathname;
  } catch {
    return null;
  }
  if (!HOME_PATH.test(path)) return null;
  const title = cleanText(rawTitle).replace(WELCOME, '');
  const name = outerPart(title, 'first') ?? title;
  return plausibleName(name) && !GENERIC.test(name) && !HOME_WORDS.test(name) && !isTagline(name) ? name : null;
}

/**
 * The website's name when the page's whole <title> is its host's name ("Quanta Magazine" on
 * quantamagazine.org: a page built by scripts keeps the site's title): the title, letters and
 * digits only, is one of the host's labels. Null otherwise.
 */
export function siteNameFromHostTitle(rawTitle: string | null, host: string | null): string | null {
  if (rawTitle === null || host === null) return null;
  const title = cleanText(rawTitle);
  const compact = folded(title);
  if (compact.length < 3 || !plausibleName(title) || GENERIC.test(title)) return null;
  return host.toLowerCase().split('.').includes(compact) ? title : null;
}

/** The copyright sign or word that opens a footer's copyright line. */
const COPYRIGHT = /©|\(c\)|\bcopyright\b/i;
/** Years after the sign: "2024", "2009-2024", "2009 – present", "MMXXIII" (capitals only: "Civil" is a name). */
const COPYRIGHT_YEARS =
  /^(?:(?:©|\([cC]\)|[Cc]opyright|COPYRIGHT)\s*)*(?:(?:(?:19|20)\d{2}|[MDCLXVI]{4,}(?=\s))(?:\s*[-–—/]\s*(?:(?:19|20)\d{2}|[Pp]resent|heute|aujourd'hui))?\s*[,:]?\s*)*(?:[-–—]\s+)?(?:[Bb]y\s+)?/;
/** Where the holder's name ends: a full stop, a separator, the rights clause. */
const HOLDER_END =
  /(?<!(?:^|\s)\p{Lu})\.(?:\s|$)|\s*[|·•;]|\s[-–—]\s|,?\s*\b(?:all rights|some rights|tous droits|alle rechte|todos los derechos|tutti i diritti|alle rettigheter|alla rättigheter)\b|,\s*(?=(?:19|20)\d{2}\b)/iu;
/** A company's legal form after its name ("Acme, Inc.", "Acme GmbH"): the site goes by the name. */
const LEGAL_FORM = /(?:,?\s+co\.?)?,?\s+(?:inc|llc|ltd|limited|gmbh|s\.a|s\.l|s\.r\.l|b\.v|plc|corp|corporation)\.?$/i;
/**
 * A theme's or a builder's credit in the same line ("WordPress Theme by ThemeForest", "Powered by
 * Ghost"), or holders that are no one site ("OpenStreetMap contributors", "their respective owners",
 * the UK's "Crown copyright").
 */
const CREDIT =
  /\b(?:theme|template|powered|designed|built|hosted|contributors|authors|licensors|affiliates|owners|copyright|rights|reserved)\b/i;

/**
 * The website's name as the copyright line of its footer gives it ("© 2024 Spoke & Chain Cycles.
 * All rights reserved." -> "Spoke & Chain Cycles"), without the years, the rights clause and a
 * company's legal form, when the name shares a word with the host. The last footer is read first
 * (a page's own footer may come before the site's). Null when no footer has such a line or it
 * names nothing name-like.
 */
export function siteNameFromCopyright(
  footers: readonly Element[],
  textOf: (node: AnyNode) => string,
  host: string | null,
): string | null {
  for (const footer of [...footers].reverse()) {
    for (const line of copyrightLines(footer, textOf)) {
      const name = copyrightHolder(line);
      if (name !== null && sharesWordWithHost(name, host)) return name;
    }
  }
  return null;
}

/**
 * Whether a word of the name (four letters or more, accents folded) is in the host's name, or the
 * whole name is: "Spoke & Chain Cycles" on spokeandchain.example, "Bäckerei Sonnenkorn" on
 * baeckerei-sonnenkorn.de. A holder that shares nothing with the host is a parent company or a
 * publisher ("CBS Interactive" on cnet.com), not the site's name.
 */
function sharesWordWithHost(name: string, host: string | null): boolean {
  if (host === null) return false;
  const labels = host
    .toLowerCase()
    .replace(/^www\d*\./, '')
    .replace(/-/g, '');
  const whole = folded(name);
  if (whole.length >= 3 && labels.includes(whole)) return true;
  return name.split(/[\s&+.,-]+/).some((word) => {
    const part = folded(word);
    return part.length >= 4 && labels.includes(part);
  });
}

/** The holder a copyright line names, or null. */
export function copyrightHolder(line: string): string | null {
  const text = cleanText(line);
  const sign = COPYRIGHT.exec(text);
  if (sign === null) return null;
  // A holder's name is short: what follows the sign is read up to 200 characters (a footer may be one long line).
  let rest = text.slice(sign.index, sign.index + 200).replace(COPYRIGHT_YEARS, '');
  const end = HOLDER_END.exec(rest);
  if (end !== null) rest = rest.slice(0, end.index);
  rest = rest.replace(/[\s,;:|·•\-–—]+$/, '').replace(/\s*(?:19|20)\d{2}(?:\s*[-–—]\s*(?:19|20)\d{2})?$/, '');
  const name = cleanText(rest.replace(LEGAL_FORM, '').replace(/[\s,;:]+$/, ''));
  return plausibleName(name) &&
    /^[\p{Lu}\p{Lo}\p{N}]/u.test(name) &&
    !GENERIC.test(name) &&
    !isTagline(name) &&
    !CREDIT.test(name)
    ? name
    : null;
}

/**
 * The texts of the elements holding a copyright sign or word in a footer, in document order: a
 * "Copyright policy" link may come before the line that names the holder.
 */
function* copyrightLines(footer: Element, textOf: (node: AnyNode) => string): Generator<string> {
  const stack: AnyNode[] = [footer];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type === 'text') {
      if (COPYRIGHT.test((node as Text).data) && node.parent !== null) yield textOf(node.parent);
      continue;
    }
    if (node.type !== 'tag') continue;
    const el = node as Element;
    if (el.name === 'script' || el.name === 'style') continue;
    for (let i = el.children.length - 1; i >= 0; i -= 1) stack.push(el.children[i]!);
  }
}
