/**
 * Turns what a user typed into an FTS5 MATCH expression (docs/knowledge.md "Query syntax"). User
 * text never reaches FTS5 syntax as it is: every term and every quoted phrase becomes an FTS5
 * string ("..." with inner quotes doubled), so operators (OR, NOT, NEAR), column filters,
 * parentheses, stars and stray quotes are only words or separators. Terms are joined by AND
 * (FTS5's implicit operator); the last bare term also matches as a prefix while the user is still
 * typing it (no trailing space).
 */

/** One part of a query: a bare term or a "quoted phrase". */
export interface QueryPart {
  text: string;
  phrase: boolean;
}

/** A term counts when it holds a letter or a digit: anything else is only separators to the tokenizer. */
const WORD = /[\p{L}\p{N}]/u;

/** Splits a query into bare terms and quoted phrases; an unclosed quote's text counts as bare terms. */
export function splitQuery(query: string): QueryPart[] {
  const segments = query.split('"');
  // With an odd number of quotes the last segment follows an unclosed one: it is not a phrase.
  const closed = segments.length % 2 === 1 ? segments.length : segments.length - 1;
  const parts: QueryPart[] = [];
  segments.forEach((segment, index) => {
    if (index % 2 === 1 && index < closed) {
      const phrase = segment.trim().replace(/\s+/g, ' ');
      if (WORD.test(phrase)) parts.push({ text: phrase, phrase: true });
      return;
    }
    for (const term of segment.split(/\s+/)) if (WORD.test(term)) parts.push({ text: term, phrase: false });
  });
  return parts;
}

const quote = (text: string) => `"${text.replaceAll('"', '""')}"`;

/** One term of a query as FTS5 strings: its whole-word form and, for the last term while typed, its prefix form. */
export interface QueryTerm {
  exact: string;
  prefix?: string;
}

/**
 * A last term shorter than this matches whole words only: the index keeps a prefix list of 3
 * characters (graph migration 0009), and FTS5 would assemble a shorter prefix from every word it
 * starts (400 ms for two letters on 1.1 million documents).
 */
export const MIN_PREFIX_CHARS = 3;

/** The terms of `query` as FTS5 strings, in order; empty when it holds no searchable word. */
export function queryTerms(query: string): QueryTerm[] {
  const parts = splitQuery(query);
  const last = parts[parts.length - 1];
  // The prefix applies to the term's last token: `259.00` is the tokens 259 and 00, so it counts 2.
  const lastToken =
    last?.text
      .split(/[^\p{L}\p{N}]+/u)
      .filter(Boolean)
      .pop() ?? '';
  const prefixLast =
    last !== undefined && !last.phrase && !/\s$/.test(query) && [...lastToken].length >= MIN_PREFIX_CHARS;
  return parts.map((part, index) => ({
    exact: quote(part.text),
    ...(prefixLast && index === parts.length - 1 ? { prefix: `${quote(part.text)}*` } : {}),
  }));
}

/**
 * The MATCH expression for `query` (every term, the last one as typed), or undefined when it
 * holds no searchable word (nothing can match). Deterministic: the same query text gives the same
 * expression.
 */
export function buildMatchExpression(query: string): string | undefined {
  const terms = queryTerms(query);
  return terms.length === 0 ? undefined : terms.map((term) => term.prefix ?? term.exact).join(' ');
}
