import type { CandidateFact, CandidateQa, EntityRef } from './contribution.js';
import type { ProvenanceMethod } from './contribution.js';
import { SOURCE_CONFIDENCE } from './predicates.js';

/**
 * Synthetic Q&A templated from the item's high-importance facts. Each answer quotes the fact
 * (its display form when it has one) and cites it in `facts`. The wording is English; the
 * record carries the item's language for grouping only (docs/extraction.md "Q&A").
 */
type FactLookup = (predicate: string) => CandidateFact | undefined;

function shown(fact: CandidateFact): string {
  if (fact.display !== undefined) return fact.display;
  return typeof fact.value === 'object' ? JSON.stringify(fact.value) : String(fact.value);
}

function make(
  question: string,
  answer: string,
  used: CandidateFact[],
  entities: EntityRef[],
  language: string,
): CandidateQa {
  const weakest = used.reduce((min, f) => Math.min(min, f.confidence), 1);
  const provenance: ProvenanceMethod = used[0]!.provenanceMethod;
  return {
    question,
    answer,
    language,
    facts: used.map((f) => ({ subject: { ...f.subject }, predicate: f.predicate })),
    entities: entities.map((e) => ({ ...e })),
    confidence: Math.round(Math.min(weakest, SOURCE_CONFIDENCE.templatedQa) * 1000) / 1000,
    provenanceMethod: provenance,
  };
}

export function templateQa(
  name: string,
  subject: EntityRef,
  best: FactLookup,
  language: string,
  extraEntities: EntityRef[] = [],
): CandidateQa[] {
  const out: CandidateQa[] = [];
  const entities = [subject, ...extraEntities];
  const price = best('price');
  if (price !== undefined) {
    const availability = best('availability');
    const tail = availability !== undefined ? ` (${shown(availability)})` : '';
    out.push(
      make(
        `What does ${name} cost?`,
        `${name} costs ${shown(price)}${tail}.`,
        availability !== undefined ? [price, availability] : [price],
        entities,
        language,
      ),
    );
  }
  const start = best('start_date');
  if (start !== undefined) {
    const end = best('end_date');
    const answer =
      end !== undefined ? `${name} starts ${shown(start)} and ends ${shown(end)}.` : `${name} starts ${shown(start)}.`;
    out.push(make(`When is ${name}?`, answer, end !== undefined ? [start, end] : [start], entities, language));
  }
  const author = best('author');
  if (author !== undefined)
    out.push(make(`Who wrote ${name}?`, `${name} was written by ${shown(author)}.`, [author], entities, language));
  const where = best('location') ?? best('address');
  if (where !== undefined)
    out.push(make(`Where is ${name}?`, `${name} is at ${shown(where)}.`, [where], entities, language));
  const hours = best('opening_hours');
  if (hours !== undefined)
    out.push(make(`When is ${name} open?`, `${name} is open ${shown(hours)}.`, [hours], entities, language));
  const rating = best('rating_value');
  if (rating !== undefined) {
    const count = best('review_count');
    const answer =
      count !== undefined
        ? `${name} is rated ${shown(rating)} from ${shown(count)} reviews.`
        : `${name} is rated ${shown(rating)}.`;
    out.push(
      make(`How is ${name} rated?`, answer, count !== undefined ? [rating, count] : [rating], entities, language),
    );
  }
  const phone = best('telephone');
  if (phone !== undefined)
    out.push(
      make(
        `What is the phone number of ${name}?`,
        `The phone number of ${name} is ${shown(phone)}.`,
        [phone],
        entities,
        language,
      ),
    );
  return out;
}
