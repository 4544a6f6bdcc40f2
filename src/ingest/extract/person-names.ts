/**
 * The people an author line names: "Jane Smith and John Doe" (or "with John Doe") is two people, each its own Person
 * entity and one value of the author fact, as a JSON-LD author array is. A line is split only when
 * every part reads as a full name (two to five words, each capitalised or a name particle), so
 * "Smith, Jane", "Procter and Gamble" and "Jane and John Smith" stay one value.
 */

/** "and" between names: English, French, German, Spanish, Italian and Portuguese, Dutch, the Scandinavian languages; "&". */
const AND_WORDS = '(?:and|&|und|et|y|e|en|og|och)';
/** "with" between names, in the same languages: "Jane Roe with John Doe", "Martin Untersinger (avec Damien Leloup et Morgane Tual)". */
const WITH_WORDS = '(?:with|avec|mit|con|com|met|med)';
/** A list of names: commas and semicolons (an Oxford comma's "and" with them), "and", and "with". */
const LIST = new RegExp(`\\s*[,;]\\s*(?:${AND_WORDS}\\s+)?|\\s+(?:${AND_WORDS}|${WITH_WORDS})\\s+`);
/** Co-authors in closing parentheses, "(with John Doe and Ann Lee)": one more part of the list. */
const WITH_PARENTHESES = new RegExp(`\\s*\\(${WITH_WORDS}\\s+([^()]+)\\)$`);
/** Lower-case words inside names: "Ludwig van Beethoven", "María de la Cruz", "Ibn al Haytham". */
const PARTICLES = new Set([
  'van',
  'von',
  'der',
  'den',
  'de',
  'del',
  'della',
  'di',
  'da',
  'das',
  'dos',
  'du',
  'la',
  'le',
  'ten',
  'ter',
  'bin',
  'bint',
  'ibn',
  'al',
  'el',
  'zu',
  'af',
  'st.',
]);
const CAPITALISED = /^[\p{Lu}\p{Lt}][\p{L}\p{M}'’.-]*$/u;

/** Two to five capitalised words, name particles (van, de, al) between them: "Jane Roe", "Ludwig van Beethoven". */
export function isFullName(part: string): boolean {
  const words = part.split(' ');
  if (words.length < 2 || words.length > 5) return false;
  if (!CAPITALISED.test(words[0]!) || !CAPITALISED.test(words[words.length - 1]!)) return false;
  return words.every((word) => CAPITALISED.test(word) || PARTICLES.has(word.toLowerCase()));
}

/** The names in `line` (a cleaned byline: cleanByline), in order without repeats; `[line]` when it is one name or not a list of full names. */
export function personNames(line: string): string[] {
  const parts = line
    .replace(WITH_PARENTHESES, ', $1')
    .split(LIST)
    .map((part) => part.trim());
  if (parts.length < 2 || !parts.every(isFullName)) return [line];
  return [...new Set(parts)];
}
