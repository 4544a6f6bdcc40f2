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

/**
 * The MATCH expression for `query`, or undefined when it holds no searchable word (nothing can
 * match). Deterministic: the same query text gives the same expression.
 */
export function buildMatchExpression(query: string): string | undefined {
  const parts = splitQuery(query);
  if (parts.length === 0) return undefined;
  const prefixLast = !parts[parts.length - 1]!.phrase && !/\s$/.test(query);
  return parts.map((part, index) => quote(part.text) + (prefixLast && index === parts.length - 1 ? '*' : '')).join(' ');
}
