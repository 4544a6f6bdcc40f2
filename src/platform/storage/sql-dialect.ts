/**
 * The control plane's one SQL dialect layer (issue 41): every control statement is written once,
 * in the SQL better-sqlite3 runs, and translated here for PostgreSQL when controlStore is a
 * `postgres://` URL. The translation is small on purpose: the statements keep to what both
 * databases share, and this layer covers only the spellings that differ (docs/scaling.md):
 *
 * - parameters: `?` and `:name`/`@name`/`$name` become `$1`, `$2`, ... (a name used twice keeps
 *   one number);
 * - an output name in mixed case (`created_at AS createdAt`) is quoted, since PostgreSQL folds
 *   unquoted names to lower case (a type in capitals, `CAST(x AS BIGINT)`, is left alone);
 * - `x IS ?` / `x IS NOT ?` (SQLite's null-safe comparison) become `IS [NOT] DISTINCT FROM`, and
 *   a parameter tested with `? IS [NOT] NULL` is cast to text (PostgreSQL cannot type it alone);
 * - `instr(a, b)` becomes `strpos(a, b)`; `json_each(x) [alias]` becomes
 *   `json_array_elements_text(CAST(x AS json)) AS alias(value)`; `json_extract(x, '$.key')`
 *   becomes `(CAST(x AS jsonb) ->> 'key')`;
 * - `COLLATE NOCASE` goes (such columns are `citext` on PostgreSQL).
 *
 * Text inside quotes and comments is never touched. Anything else SQLite-only fails on the
 * server, and the conformance tests (the same tests on both stores) find it.
 */
export interface TranslatedStatement {
  /** The statement for PostgreSQL, with `$n` parameters. */
  readonly text: string;
  /** For named parameters: the name of each `$n` in order; empty for positional ones. */
  readonly names: readonly string[];
  /** How many positional `?` parameters it takes. */
  readonly positional: number;
}

type Token =
  { kind: 'word'; text: string } | { kind: 'param'; name: string | undefined } | { kind: 'other'; text: string };

export function toPostgres(sql: string): TranslatedStatement {
  const tokens = tokenize(sql);
  const names: string[] = [];
  let positional = 0;
  const numberOf = (name: string | undefined): number => {
    if (name === undefined) return ++positional + names.length;
    const at = names.indexOf(name);
    if (at >= 0) return at + 1;
    names.push(name);
    return names.length;
  };
  const out: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.kind === 'param') {
      // `? IS NULL`: PostgreSQL cannot tell a lone parameter's type, and any type tests the same.
      const next = nextWord(tokens, i);
      const isNullTest = next?.token.kind === 'word' && next.token.text.toUpperCase() === 'IS';
      out.push(isNullTest ? `CAST($${numberOf(token.name)} AS TEXT)` : `$${numberOf(token.name)}`);
      continue;
    }
    if (token.kind === 'other') {
      out.push(token.text);
      continue;
    }
    const upper = token.text.toUpperCase();
    const next = nextWord(tokens, i);
    if (
      upper === 'AS' &&
      next?.token.kind === 'word' &&
      /[a-z]/.test(next.token.text) &&
      /[A-Z]/.test(next.token.text)
    ) {
      out.push(token.text, ...textBetween(tokens, i, next.at), `"${next.token.text}"`);
      i = next.at;
      continue;
    }
    if (upper === 'IS' && next) {
      const afterNot =
        next.token.kind === 'word' && next.token.text.toUpperCase() === 'NOT' ? nextWord(tokens, next.at) : undefined;
      if (next.token.kind === 'param') {
        out.push('IS NOT DISTINCT FROM ', `$${numberOf(next.token.name)}`);
        i = next.at;
        continue;
      }
      if (afterNot?.token.kind === 'param') {
        out.push('IS DISTINCT FROM ', `$${numberOf(afterNot.token.name)}`);
        i = afterNot.at;
        continue;
      }
    }
    if (upper === 'COLLATE' && next?.token.kind === 'word' && next.token.text.toUpperCase() === 'NOCASE') {
      i = next.at;
      continue;
    }
    if (upper === 'INSTR' && isOpenParen(tokens[i + 1])) {
      out.push('strpos');
      continue;
    }
    if (upper === 'JSON_EXTRACT' && isOpenParen(tokens[i + 1])) {
      const close = matchingParen(tokens, i + 1);
      const argument = toPostgresTokens(tokens.slice(i + 2, close), numberOf);
      const path = /^(.*),\s*'\$\.([A-Za-z_][A-Za-z0-9_]*)'$/s.exec(argument);
      if (!path) throw new Error(`json_extract needs a '$.key' path on PostgreSQL: ${sql}`);
      out.push(`(CAST(${path[1]} AS jsonb) ->> '${path[2]}')`);
      i = close;
      continue;
    }
    if (upper === 'JSON_EACH' && isOpenParen(tokens[i + 1])) {
      const close = matchingParen(tokens, i + 1);
      const inner = tokens.slice(i + 2, close);
      const argument = toPostgresTokens(inner, numberOf);
      const afterClose = nextWord(tokens, close);
      const alias =
        afterClose?.token.kind === 'word' && afterClose.token.text.toUpperCase() === 'AS'
          ? nextWord(tokens, afterClose.at)
          : afterClose;
      const isAlias =
        alias?.token.kind === 'word' && !RESERVED_AFTER_TABLE.has(alias.token.text.toUpperCase()) ? alias : undefined;
      const name = isAlias?.token.kind === 'word' ? isAlias.token.text : 'json_each';
      out.push(`json_array_elements_text(CAST(${argument} AS json)) AS ${name}(value)`);
      i = isAlias ? isAlias.at : close;
      continue;
    }
    out.push(token.text);
  }
  return { text: out.join(''), names, positional };
}

function isOpenParen(token: Token | undefined): boolean {
  return token?.kind === 'other' && token.text === '(';
}

/** Words that may follow `json_each(...)` without being its alias. */
const RESERVED_AFTER_TABLE = new Set(['WHERE', 'ON', 'JOIN', 'LEFT', 'INNER', 'CROSS', 'ORDER', 'GROUP', 'LIMIT']);

/** The translation of a run of tokens (a function's argument), numbering parameters in the same sequence. */
function toPostgresTokens(tokens: readonly Token[], numberOf: (name: string | undefined) => number): string {
  return tokens
    .map((token) => (token.kind === 'param' ? `$${numberOf(token.name)}` : token.text))
    .join('')
    .trim();
}

function nextWord(tokens: readonly Token[], from: number): { token: Token; at: number } | undefined {
  for (let j = from + 1; j < tokens.length; j++) {
    const token = tokens[j]!;
    if (token.kind === 'other' && /^\s+$/.test(token.text)) continue;
    return { token, at: j };
  }
  return undefined;
}

function textBetween(tokens: readonly Token[], from: number, to: number): string[] {
  return tokens.slice(from + 1, to).map((token) => (token.kind === 'param' ? '' : token.text));
}

function matchingParen(tokens: readonly Token[], open: number): number {
  let depth = 0;
  for (let j = open; j < tokens.length; j++) {
    const token = tokens[j]!;
    if (token.kind !== 'other') continue;
    if (token.text === '(') depth++;
    else if (token.text === ')' && --depth === 0) return j;
  }
  throw new Error('SQL has an unclosed parenthesis');
}

/**
 * Splits SQL into words, parameters and everything else (quoted text, comments, punctuation and
 * spaces kept verbatim), so the rules above never look inside a string or a quoted name.
 */
function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const push = (text: string) => tokens.push({ kind: 'other', text });
  while (i < sql.length) {
    const c = sql[i]!;
    if (c === "'" || c === '"' || c === '`') {
      let j = i + 1;
      for (;;) {
        if (j >= sql.length) throw new Error(`SQL has an unclosed ${c} quote`);
        if (sql[j] === c) {
          if (sql[j + 1] === c) j += 2;
          else break;
        } else j++;
      }
      push(sql.slice(i, j + 1));
      i = j + 1;
    } else if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      const stop = end < 0 ? sql.length : end;
      push(sql.slice(i, stop));
      i = stop;
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      const stop = end < 0 ? sql.length : end + 2;
      push(sql.slice(i, stop));
      i = stop;
    } else if (c === '?') {
      tokens.push({ kind: 'param', name: undefined });
      i++;
    } else if ((c === ':' || c === '@' || c === '$') && /[A-Za-z_]/.test(sql[i + 1] ?? '') && sql[i - 1] !== ':') {
      const match = /^[A-Za-z_][A-Za-z0-9_]*/.exec(sql.slice(i + 1))!;
      tokens.push({ kind: 'param', name: match[0] });
      i += 1 + match[0].length;
    } else if (/[A-Za-z_]/.test(c)) {
      const match = /^[A-Za-z_][A-Za-z0-9_]*/.exec(sql.slice(i))!;
      tokens.push({ kind: 'word', text: match[0] });
      i += match[0].length;
    } else if (/\s/.test(c)) {
      const match = /^\s+/.exec(sql.slice(i))!;
      push(match[0]);
      i += match[0].length;
    } else {
      push(c);
      i++;
    }
  }
  return tokens;
}
