import type {
  CandidateChunk,
  CandidateEntity,
  CandidateFact,
  CandidateQa,
  CandidateRelationship,
  EntityRef,
} from './contribution.js';
import type { ProvenanceMethod } from './contribution.js';
import { identityType, mostSpecificType } from './identity.js';
import { nameKey } from './normalize.js';
import { predicateInfo } from './predicates.js';
import { PROVENANCE_RANK } from '../../platform/contract/provenance.js';
import { isDateOrTimestamp, isSnakeCase, isTypeName, toWebsiteUrl } from './record-values.js';

export interface FactInput {
  subject: EntityRef;
  subjectName: string;
  predicate: string;
  value: string | number | boolean | Record<string, unknown>;
  provenance: ProvenanceMethod;
  confidence: number;
  unit?: string;
  currency?: string;
  display?: string;
  validFrom?: string;
  validUntil?: string;
}

export interface EntityInput extends EntityRef {
  name: string;
  provenance: ProvenanceMethod;
  confidence: number;
  importance: number;
  attributes?: Record<string, unknown>;
}

/** One entity per key: a MusicEvent and an Event with one url are one (identityType, docs/contract.md#entity-identity). */
export function refKey(ref: EntityRef): string {
  return identityType(ref.type) + '\u001f' + ref.canonicalKey;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function stableJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return '[' + value.map(stableJson).join(',') + ']';
  const keys = Object.keys(value).sort();
  return (
    '{' + keys.map((k) => JSON.stringify(k) + ':' + stableJson((value as Record<string, unknown>)[k])).join(',') + '}'
  );
}

/** Most warnings an item keeps; one more line says how many were left out. */
export const MAX_WARNINGS = 50;

/** A value quoted for a warning, cut to 60 characters. */
export function quoted(value: unknown): string {
  return JSON.stringify(String(value).slice(0, 60));
}

const CURRENCY = /^[A-Z]{3}$/;

/**
 * Collects the candidates of one item, dropping exact duplicates (the same statement from the
 * same provenance keeps its highest confidence), and emits them in a stable order that depends
 * on their content only, never on the order the sources were read in. It is the last check
 * before the graph: a candidate a node record would not accept (a predicate that is not
 * snake_case, an entity type that is not a type name, an empty name) is dropped with a warning.
 */
export class ContributionBuilder {
  private readonly entities = new Map<string, CandidateEntity>();
  private readonly facts = new Map<string, CandidateFact>();
  private readonly relationships = new Map<string, CandidateRelationship>();
  /** Entities dropped by the checks: facts and relationships naming them are dropped too. */
  private readonly droppedEntities = new Set<string>();
  readonly qa: CandidateQa[] = [];
  readonly warnings: string[] = [];

  /** `hosts`: the website's hosts (websiteHosts); a canonical_url fact must name one, as the node's url policy requires. */
  constructor(
    readonly language: string,
    private readonly hosts: ReadonlySet<string> = new Set(),
  ) {}

  addEntity(input: EntityInput): EntityRef {
    const ref: EntityRef = { type: input.type, canonicalKey: input.canonicalKey };
    const key = refKey(ref);
    if (!isTypeName(input.type) || input.name === '') {
      if (!this.droppedEntities.has(key))
        this.warnings.push(
          `entity.dropped: ${quoted(input.name)} has ${input.name === '' ? 'an empty name' : `type ${quoted(input.type)}, not a schema.org type name`}`,
        );
      this.droppedEntities.add(key);
      return ref;
    }
    const existing = this.entities.get(key);
    const better =
      existing === undefined ||
      PROVENANCE_RANK[input.provenance] < PROVENANCE_RANK[existing.provenanceMethod] ||
      (input.provenance === existing.provenanceMethod && input.confidence > existing.confidence);
    const attributes = { ...(input.attributes ?? {}), ...(existing?.attributes ?? {}) };
    if (better) {
      Object.assign(attributes, input.attributes ?? {});
      this.entities.set(key, {
        type: mostSpecificType(existing === undefined ? [ref.type] : [ref.type, existing.type]),
        canonicalKey: ref.canonicalKey,
        name: input.name,
        language: this.language,
        confidence: input.confidence,
        provenanceMethod: input.provenance,
        importance: Math.max(input.importance, existing?.importance ?? 1),
        attributes,
      });
    } else {
      existing.type = mostSpecificType([existing.type, ref.type]);
      existing.attributes = attributes;
      existing.importance = Math.max(existing.importance, input.importance);
    }
    return ref;
  }

  /**
   * One entity per thing on the page: a thing named by text only ("GitLab", keyed by its name)
   * where the page also describes one thing of that type family and name with an identity url is
   * that thing, so its facts, relationships and Q&A move to the url's entity. Not when two
   * things of that name have urls (which one is meant is not known), and never for `keep` (the
   * item and the website). Run once, after every candidate is added. Returns where a ref now
   * points, for refs held outside the builder.
   */
  mergeNamedAliases(keep: readonly EntityRef[]): (ref: EntityRef) => EntityRef {
    const kept = new Set(keep.map(refKey));
    const withUrl = new Map<string, CandidateEntity[]>();
    for (const entity of this.entities.values()) {
      if (!/^https?:\/\//.test(entity.canonicalKey)) continue;
      const group = identityType(entity.type) + '\u001f' + nameKey(entity.name);
      if (withUrl.has(group)) withUrl.get(group)!.push(entity);
      else withUrl.set(group, [entity]);
    }
    const alias = new Map<string, CandidateEntity>();
    for (const [key, entity] of this.entities) {
      if (kept.has(key) || entity.canonicalKey !== nameKey(entity.name)) continue;
      const targets = withUrl.get(identityType(entity.type) + '\u001f' + entity.canonicalKey);
      if (targets?.length === 1 && !kept.has(refKey(targets[0]!))) alias.set(key, targets[0]!);
    }
    if (alias.size === 0) return (ref) => ref;
    const moved = (ref: EntityRef): EntityRef => {
      const target = alias.get(refKey(ref));
      return target === undefined ? ref : { type: target.type, canonicalKey: target.canonicalKey };
    };
    for (const [key, entity] of alias) {
      const from = this.entities.get(key)!;
      this.entities.delete(key);
      this.addEntity({ ...from, canonicalKey: entity.canonicalKey, provenance: from.provenanceMethod });
    }
    const facts = [...this.facts.values()];
    this.facts.clear();
    for (const fact of facts)
      this.addFact({ ...fact, subject: moved(fact.subject), provenance: fact.provenanceMethod });
    const relationships = [...this.relationships.values()];
    this.relationships.clear();
    for (const r of relationships)
      this.addRelationship(moved(r.from), r.type, moved(r.to), r.provenanceMethod, r.confidence);
    for (const qa of this.qa) {
      qa.entities = qa.entities.map(moved);
      qa.facts = qa.facts.map((f) => ({ ...f, subject: moved(f.subject) }));
    }
    return moved;
  }

  /** Sets subjectName on every fact about subject (the item's name is known only at the end). */
  renameSubject(subject: EntityRef, name: string): void {
    const key = refKey(subject);
    for (const fact of this.facts.values()) if (refKey(fact.subject) === key) fact.subjectName = name;
  }

  hasEntity(ref: EntityRef): boolean {
    return this.entities.has(refKey(ref));
  }

  entityNames(): Array<{ ref: EntityRef; name: string }> {
    return [...this.entities.values()].map((e) => ({
      ref: { type: e.type, canonicalKey: e.canonicalKey },
      name: e.name,
    }));
  }

  addFact(input: FactInput): void {
    if (typeof input.value === 'string' && input.value === '') return;
    if (!isSnakeCase(input.predicate)) {
      this.warnings.push(`fact.dropped: predicate ${quoted(input.predicate)} is not snake_case`);
      return;
    }
    if (typeof input.value === 'number' && !Number.isFinite(input.value)) {
      this.warnings.push(`fact.dropped: ${input.predicate} is not a finite number`);
      return;
    }
    let value = input.value;
    if (input.predicate === 'canonical_url') {
      const url = typeof value === 'string' ? toWebsiteUrl(value, this.hosts) : null;
      if (url === null) {
        this.warnings.push(
          `fact.dropped: canonical_url ${quoted(value)} is not an absolute http(s) url on the website's hosts`,
        );
        return;
      }
      value = url;
    }
    const info = predicateInfo(input.predicate);
    const fact: CandidateFact = {
      subject: { type: input.subject.type, canonicalKey: input.subject.canonicalKey },
      subjectName: input.subjectName,
      predicate: input.predicate,
      value,
      language: this.language,
      confidence: input.confidence,
      provenanceMethod: input.provenance,
      importance: info.importance,
      freshness: info.freshness,
    };
    if (input.unit !== undefined && input.unit !== '') fact.unit = input.unit;
    if (input.currency !== undefined && CURRENCY.test(input.currency)) fact.currency = input.currency;
    if (input.display !== undefined && input.display !== '') fact.display = input.display;
    if (input.validFrom !== undefined)
      fact.validFrom = this.checkedDate(input.validFrom, 'valid_from', input.predicate);
    if (input.validUntil !== undefined)
      fact.validUntil = this.checkedDate(input.validUntil, 'valid_until', input.predicate);
    const key = [
      refKey(fact.subject),
      fact.predicate,
      fact.provenanceMethod,
      stableJson(fact.value),
      fact.currency ?? '',
      fact.validFrom ?? '',
      fact.validUntil ?? '',
    ].join('\u001e');
    const existing = this.facts.get(key);
    if (existing === undefined || fact.confidence > existing.confidence) this.facts.set(key, fact);
  }

  /** The date when valid_from / valid_until accept it; else undefined, and the fact keeps no bound. */
  private checkedDate(value: string, field: string, predicate: string): string | undefined {
    if (isDateOrTimestamp(value)) return value;
    this.warnings.push(
      `date.dropped: ${field} ${quoted(value)} of ${predicate} is not a date or an RFC 3339 UTC timestamp`,
    );
    return undefined;
  }

  addRelationship(
    from: EntityRef,
    type: string,
    to: EntityRef,
    provenance: ProvenanceMethod,
    confidence: number,
  ): void {
    if (refKey(from) === refKey(to)) return;
    if (!isSnakeCase(type)) {
      this.warnings.push(`relationship.dropped: type ${quoted(type)} is not snake_case`);
      return;
    }
    const key = [refKey(from), type, refKey(to), provenance].join('\u001e');
    const existing = this.relationships.get(key);
    if (existing !== undefined && existing.confidence >= confidence) return;
    this.relationships.set(key, {
      from: { type: from.type, canonicalKey: from.canonicalKey },
      type,
      to: { type: to.type, canonicalKey: to.canonicalKey },
      language: this.language,
      confidence,
      provenanceMethod: provenance,
    });
  }

  /** Whether `from` has a relationship of `type` to an entity of type `toType` (a post's author who is a person). */
  hasRelationshipTo(from: EntityRef, type: string, toType: string): boolean {
    const fromKey = refKey(from);
    for (const r of this.relationships.values())
      if (r.type === type && r.to.type === toType && refKey(r.from) === fromKey) return true;
    return false;
  }

  /** Whether an entity that is not a Person has this name, case aside (the publication a byline may name). */
  namesNonPerson(name: string): boolean {
    const wanted = name.toLowerCase();
    for (const entity of this.entities.values())
      if (entity.type !== 'Person' && entity.name.toLowerCase() === wanted) return true;
    return false;
  }

  /** The best fact of (subject, predicate) by the graph store's survivor rule, for the item's own use. */
  bestFact(subject: EntityRef, predicate: string): CandidateFact | undefined {
    let best: CandidateFact | undefined;
    const subjectKey = refKey(subject);
    for (const fact of this.facts.values()) {
      if (fact.predicate !== predicate || refKey(fact.subject) !== subjectKey) continue;
      if (best === undefined || compareFacts(fact, best) < 0) best = fact;
    }
    return best;
  }

  allFacts(): CandidateFact[] {
    return [...this.facts.values()]
      .filter((f) => this.isKept(f.subject))
      .map((f) => ({ ...f, subject: this.typedRef(f.subject) }))
      .sort(compareFacts);
  }

  /** The ref with the type its entity kept (the most specific one stated for it). */
  typedRef(ref: EntityRef): EntityRef {
    const type = this.entities.get(refKey(ref))?.type ?? ref.type;
    return { type, canonicalKey: ref.canonicalKey };
  }

  /** False for an entity the checks dropped (and no valid candidate of it was added). */
  private isKept(ref: EntityRef): boolean {
    if (this.droppedEntities.size === 0) return true;
    const key = refKey(ref);
    return !this.droppedEntities.has(key) || this.entities.has(key);
  }

  /** The warnings, at most MAX_WARNINGS of them and a line counting the rest. */
  buildWarnings(): string[] {
    if (this.warnings.length <= MAX_WARNINGS) return [...this.warnings];
    return [...this.warnings.slice(0, MAX_WARNINGS), `warnings.truncated: ${this.warnings.length - MAX_WARNINGS} more`];
  }

  buildEntities(first: EntityRef[]): CandidateEntity[] {
    const leading = first.map(refKey);
    return [...this.entities.values()].sort((a, b) => {
      const ia = leading.indexOf(refKey(a));
      const ib = leading.indexOf(refKey(b));
      if (ia !== ib) return (ia === -1 ? Infinity : ia) - (ib === -1 ? Infinity : ib);
      return compareText(a.type, b.type) || compareText(a.canonicalKey, b.canonicalKey);
    });
  }

  buildRelationships(): CandidateRelationship[] {
    return [...this.relationships.values()]
      .filter((r) => this.isKept(r.from) && this.isKept(r.to))
      .map((r) => ({ ...r, from: this.typedRef(r.from), to: this.typedRef(r.to) }))
      .sort(
        (a, b) =>
          compareText(refKey(a.from), refKey(b.from)) ||
          compareText(a.type, b.type) ||
          compareText(refKey(a.to), refKey(b.to)) ||
          PROVENANCE_RANK[a.provenanceMethod] - PROVENANCE_RANK[b.provenanceMethod],
      );
  }

  buildQa(): CandidateQa[] {
    const seen = new Map<string, CandidateQa>();
    for (const qa of this.qa) {
      if (qa.question === '' || qa.answer === '') continue;
      const key = qa.question.toLowerCase();
      const existing = seen.get(key);
      if (
        existing === undefined ||
        PROVENANCE_RANK[qa.provenanceMethod] < PROVENANCE_RANK[existing.provenanceMethod] ||
        (qa.provenanceMethod === existing.provenanceMethod && qa.confidence > existing.confidence)
      )
        seen.set(key, qa);
    }
    return [...seen.values()].sort((a, b) => compareText(a.question, b.question) || compareText(a.answer, b.answer));
  }
}

/** Survivor order: provenance rank, then confidence (high first), then content. */
export function compareFacts(a: CandidateFact, b: CandidateFact): number {
  return (
    compareText(refKey(a.subject), refKey(b.subject)) ||
    compareText(a.predicate, b.predicate) ||
    PROVENANCE_RANK[a.provenanceMethod] - PROVENANCE_RANK[b.provenanceMethod] ||
    b.confidence - a.confidence ||
    compareText(stableJson(a.value), stableJson(b.value)) ||
    compareText(a.validFrom ?? '', b.validFrom ?? '')
  );
}

export type { CandidateChunk };
