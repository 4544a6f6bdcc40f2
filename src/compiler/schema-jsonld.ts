import { schemaOrgType } from '../platform/node-format/index.js';
import { briefText, type EntityBrief, type FactBrief } from './highlights.js';

/** Only entities and facts of at least this importance are projected into schema.jsonld. */
export const JSONLD_MIN_IMPORTANCE = 4;

/**
 * The base of every @id in schema.jsonld: the website's canonical origin (https, its domain as a
 * URL parser writes it) and a fragment. Absolute, so RDF tools need no base and the ids are the
 * same read from latest/ or versions/<id>/; the fragment is the node-local record id.
 */
export function schemaJsonLdBase(domain: string): string {
  return `${new URL(`https://${domain.replace(/\.$/, '')}/`).origin}/#`;
}

/**
 * schema.jsonld: the high-importance entities as schema.org nodes and their high-importance facts
 * as PropertyValue nodes linked through additionalProperty. Every @id is `base` + the node-local
 * stable id (entity_*, fact_*), `base` from schemaJsonLdBase.
 */
export function buildSchemaJsonLd(
  base: string,
  entities: EntityBrief[],
  factsByEntity: Map<string, FactBrief[]>,
): Record<string, unknown> {
  const graph: Array<Record<string, unknown>> = [];
  const factNodes: Array<Record<string, unknown>> = [];
  for (const entity of entities) {
    const node: Record<string, unknown> = {
      '@id': base + entity.id,
      '@type': schemaOrgType(entity.type),
      name: entity.name,
      inLanguage: entity.language,
    };
    if (entity.sourceUrl !== null) node.url = entity.sourceUrl;
    const facts = (factsByEntity.get(entity.id) ?? []).filter((f) => f.importance >= JSONLD_MIN_IMPORTANCE);
    if (facts.length > 0) node.additionalProperty = facts.map((f) => ({ '@id': base + f.id }));
    graph.push(node);
    for (const f of facts) {
      const fact: Record<string, unknown> = {
        '@id': base + f.id,
        '@type': 'PropertyValue',
        propertyID: f.predicate,
        name: f.predicate.replace(/_/g, ' '),
        value: typeof f.value === 'object' ? briefText(f) : f.value,
      };
      if (f.unit !== null) fact.unitText = f.unit;
      if (f.currency !== null) fact.currency = f.currency;
      factNodes.push(fact);
    }
  }
  return { '@context': 'https://schema.org', '@graph': [...graph, ...factNodes] };
}
