/**
 * Escaping for the markdown of llms.txt and llms-full.txt (docs/node-format.md "Text escaping").
 * Graph text (names, types, fact values, the brand and description) and page URLs are data: once
 * escaped, none of it can open a link, an HTML tag, emphasis or a code span, or reorder the
 * text around it.
 */

/**
 * C0 and C1 controls, and the bidi controls (ALM, LRM, RLM, LRE, RLE, PDF, LRO, RLO, LRI, RLI,
 * FSI, PDI) that can make a line read differently from its bytes. Tab, line feed, vertical tab,
 * form feed and carriage return are not here: oneLine turns them into spaces.
 */
const CONTROLS = /[\u0000-\u0008\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
/** The same characters in a whole file, where line feeds belong (for the validator). */
export const UNSAFE_TEXT_CHARACTER =
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
/** Characters that open inline markdown or HTML; each is backslash-escaped (CommonMark). */
const MARKDOWN_SIGNIFICANT = /[\\`*_[\]<>&]/g;
/** What a link destination keeps as is: RFC 3986 unreserved and reserved characters, and %. */
const DESTINATION_SAFE = /[A-Za-z0-9\-._~:/?#@!$&*+,;=%]/;
/** Half a surrogate pair has no UTF-8 encoding; it becomes U+FFFD. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** One line of plain text: controls are dropped, then whitespace runs become one space. */
export function oneLine(text: string): string {
  return text.replace(CONTROLS, '').replace(/\s+/g, ' ').trim();
}

/** Text for a markdown line: one line, markdown-significant characters backslash-escaped. */
export function markdownText(text: string): string {
  return oneLine(text).replace(MARKDOWN_SIGNIFICANT, '\\$&');
}

/**
 * Text of a markdown link. Brackets are dropped rather than escaped, so the simple
 * `[text](url)` readers of llms.txt (and parseLlmsTxt) read every link whole.
 */
export function markdownLinkText(text: string): string {
  return markdownText(oneLine(text).replace(/[[\]]/g, ''));
}

/**
 * A URL as a markdown link destination (or a URL in running text): every character that markdown
 * or HTML could read as syntax (whitespace, controls, < > " ' ( ) [ ] \ ` { } | ^) and every
 * non-ASCII character is percent-encoded (UTF-8), as is a % that starts no escape. The `;` that
 * would close an HTML entity reference after & is encoded too, since markdown decodes entities
 * in destinations.
 */
export function markdownDestination(url: string): string {
  let out = '';
  for (const char of url.replace(LONE_SURROGATE, '\ufffd')) {
    if (DESTINATION_SAFE.test(char)) out += char;
    else out += percentEncode(char);
  }
  return out.replace(/%(?![0-9A-Fa-f]{2})/g, '%25').replace(/(&#?[A-Za-z0-9]+);/g, '$1%3B');
}

function percentEncode(char: string): string {
  let out = '';
  for (const byte of Buffer.from(char, 'utf8')) out += '%' + byte.toString(16).toUpperCase().padStart(2, '0');
  return out;
}

/** Undoes markdownText's backslash escapes (for readers of the llms files). */
export function unescapeMarkdown(text: string): string {
  return text.replace(/\\([!-/:-@[-`{-~])/g, '$1');
}
