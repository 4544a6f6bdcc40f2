import { normalizeDateTime, type DateValue } from './normalize.js';

/**
 * A property with several values is one fact whose value is {"values": [...]} in source order
 * without duplicates, its display joined with ", " (docs/contract.md#fact-rules). One value
 * stays a plain value, so single-valued facts read as before.
 */
export interface ListValue {
  value: string | number | { values: Array<string | number> };
  display?: string;
}

/** `displays`: a value's own display (a date's local time), by position in `values`; the joined display uses it. */
export function listValue(
  values: ReadonlyArray<string | number>,
  displays: ReadonlyArray<string | undefined> = [],
): ListValue | null {
  const unique: Array<string | number> = [];
  const seen = new Set<string | number>();
  const shown: string[] = [];
  values.forEach((value, index) => {
    if (seen.has(value)) return;
    seen.add(value);
    unique.push(value);
    shown.push(displays[index] ?? String(value));
  });
  if (unique.length === 0) return null;
  if (unique.length === 1)
    return displays.length > 0 && shown[0] !== String(unique[0])
      ? { value: unique[0]!, display: shown[0] }
      : { value: unique[0]! };
  return { value: { values: unique }, display: shown.join(', ') };
}

/** The dates of several values (normalizeDateTime) as listValue's values and displays; what is not a date is left out. */
export function dateList(values: ReadonlyArray<unknown>): { values: string[]; displays: Array<string | undefined> } {
  const dates = values.map(normalizeDateTime).filter((d): d is DateValue => d !== null);
  return { values: dates.map((d) => d.value), displays: dates.map((d) => d.display) };
}

/** The items of comma-separated texts, as keywords are written ("owls, night" -> ["owls", "night"]); empty items are left out. */
export function commaItems(texts: ReadonlyArray<string>): string[] {
  return texts
    .flatMap((text) => text.split(','))
    .map((item) => item.trim())
    .filter((item) => item !== '');
}
