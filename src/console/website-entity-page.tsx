import { useEffect, useState } from 'preact/hooks';
import { call } from './api.js';
import { ErrorMessage } from './error-message.js';
import { entityPath, websitePath } from './router.js';
import type { WebsitePageProps } from './website-layout.js';

/** The entity as the facts and related routes answer it (src/output/knowledge/api-schemas.ts). */
interface Entity {
  id: string;
  type: string;
  name: string;
  language: string;
  importance: number;
  source_url?: string;
}

interface Fact {
  id: string;
  predicate: string;
  value: unknown;
  display?: string;
  unit?: string;
  currency?: string;
  language: string;
  confidence: number;
  provenance_method: string;
  source_url?: string;
}

interface Related {
  entity: Entity;
  via: Array<{ rel_id: string; type: string; direction: 'out' | 'in' }>;
}

/** A fact's value in words: the display form when the API gives one, else the value with its unit. */
function valueText(fact: Fact): string {
  if (fact.display) return fact.display;
  const value = typeof fact.value === 'string' ? fact.value : JSON.stringify(fact.value);
  return [value, fact.unit ?? fact.currency].filter(Boolean).join(' ');
}

/** One entity: its exported facts with their sources, and the entities related to it (links). */
export function WebsiteEntityPage({ website, entityId }: WebsitePageProps & { entityId: string }) {
  const [entity, setEntity] = useState<Entity>();
  const [facts, setFacts] = useState<Fact[]>();
  const [related, setRelated] = useState<{ related: Related[]; truncated: boolean }>();
  const [error, setError] = useState<unknown>();
  const base = `/v1/websites/${encodeURIComponent(website.id)}/entities/${encodeURIComponent(entityId)}`;

  useEffect(() => {
    setEntity(undefined);
    setFacts(undefined);
    setRelated(undefined);
    setError(undefined);
    void Promise.all([
      call<{ entity: Entity; facts: Fact[] }>('GET', `${base}/facts`),
      call<{ entity: Entity; related: Related[]; truncated: boolean }>('GET', `${base}/related?depth=1&limit=50`),
    ]).then(([factsAnswer, relatedAnswer]) => {
      setEntity(factsAnswer.entity);
      setFacts(factsAnswer.facts);
      setRelated(relatedAnswer);
    }, setError);
  }, [website.id, entityId]);

  return (
    <>
      <p class="crumbs">
        <a href={websitePath(website.id, 'knowledge')}>Knowledge</a> › entity
      </p>
      <h1 tabIndex={-1}>{entity ? entity.name : 'Entity'}</h1>
      <ErrorMessage error={error} />
      {!entity && !error && <p aria-busy="true">Loading…</p>}
      {entity && (
        <p class="meta">
          {entity.type} · {entity.language} · importance {entity.importance}
          {entity.source_url && (
            <>
              {' '}
              · from <a href={entity.source_url}>{entity.source_url}</a>
            </>
          )}
        </p>
      )}
      {facts && (
        <section aria-labelledby="facts-heading">
          <h2 id="facts-heading">Facts</h2>
          {facts.length === 0 ? (
            <p class="empty">No exported fact about this entity: its facts may be hidden or not extracted yet.</p>
          ) : (
            <table>
              <caption class="visually-hidden">Facts about {entity?.name}, most important first</caption>
              <thead>
                <tr>
                  <th scope="col">Property</th>
                  <th scope="col">Value</th>
                  <th scope="col">Confidence</th>
                  <th scope="col">Source</th>
                </tr>
              </thead>
              <tbody>
                {facts.map((fact) => (
                  <tr key={fact.id}>
                    <td>{fact.predicate}</td>
                    <td>{valueText(fact)}</td>
                    <td>
                      {Math.round(fact.confidence * 100)}% <span class="meta">({fact.provenance_method})</span>
                    </td>
                    <td>{fact.source_url ? <a href={fact.source_url}>{fact.source_url}</a> : '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
      )}
      {related && (
        <section aria-labelledby="related-heading">
          <h2 id="related-heading">Related entities</h2>
          {related.related.length === 0 ? (
            <p class="empty">No exported relationship links this entity to another.</p>
          ) : (
            <ul class="cards">
              {related.related.map((item) => (
                <li key={item.entity.id}>
                  <a href={entityPath(website.id, item.entity.id)}>{item.entity.name}</a>
                  <span class="meta">
                    {item.entity.type} ·{' '}
                    {item.via.map((hop) => (hop.direction === 'out' ? hop.type : `${hop.type} (of)`)).join(' › ')}
                  </span>
                </li>
              ))}
            </ul>
          )}
          {related.truncated && <p class="meta">The first 50 related entities are shown.</p>}
        </section>
      )}
    </>
  );
}
