import { compareStrings } from './top-k.js';

/** The few fields of an exported entity that the text and ranking files use. */
export interface EntityBrief {
  id: string;
  type: string;
  name: string;
  language: string;
  importance: number;
  sourceUrl: string | null;
  file: string;
}

/** The few fields of an exported fact that the text and ranking files use. */
export interface FactBrief {
  id: string;
  subject: string;
  subjectEntityId: string | null;
  predicate: string;
  value: string | number | boolean | Record<string, unknown>;
  display: string | null;
  unit: string | null;
  currency: string | null;
  importance: number;
  language: string;
  sourceUrl: string | null;
  file: string;
}

/** What the entity order reads: an EntityRow has it too. */
export type EntityRank = Pick<EntityBrief, 'importance' | 'language' | 'name' | 'id'>;
/** What the fact order reads: a FactRow has it too. */
export type FactRank = Pick<FactBrief, 'importance' | 'predicate' | 'id'>;

/** Most important first; then the default language; then name and id (a total order). */
export function compareEntityBriefs(defaultLanguage: string) {
  return (a: EntityRank, b: EntityRank): number =>
    b.importance - a.importance ||
    Number(b.language === defaultLanguage) - Number(a.language === defaultLanguage) ||
    compareStrings(a.name, b.name) ||
    compareStrings(a.id, b.id);
}

export function compareFactBriefs(a: FactRank, b: FactRank): number {
  return b.importance - a.importance || compareStrings(a.predicate, b.predicate) || compareStrings(a.id, b.id);
}

const MAX_TEXT = 400;

/** The value of a brief as a person reads it (computed only for the few facts that are shown). */
export function briefText(fact: FactBrief): string {
  return factText(fact.value, fact.display, fact.unit);
}

/** One-line text of a fact value for llms files and labels. */
export function factText(value: FactBrief['value'], display: string | null, unit: string | null): string {
  let text = display ?? (typeof value === 'object' ? JSON.stringify(value) : String(value));
  if (display === null && unit !== null) text += ` ${unit}`;
  text = text.replace(/\s+/g, ' ').trim();
  return text.length > MAX_TEXT ? text.slice(0, MAX_TEXT - 1) + '…' : text;
}
