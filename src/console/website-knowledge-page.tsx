import { useEffect, useState } from 'preact/hooks';
import { listPath } from './api.js';
import { ErrorMessage } from './error-message.js';
import { snippetParts } from './node-text.js';
import { entityPath, navigate, websitePath } from './router.js';
import type { WebsitePageProps } from './website-layout.js';
import { usePagedList } from './use-paged-list.js';

/** GET /v1/websites/:id/knowledge/search (src/output/knowledge/api-schemas.ts). */
interface Hit {
  kind: 'entity' | 'fact' | 'chunk';
  id: string;
  score: number;
  language: string;
  title: string;
  snippet: string;
  entity_id?: string;
  source_url?: string;
}

const KIND_LABELS = { entity: 'Entity', fact: 'Fact', chunk: 'Text' } as const;

/** The query of the address: `q` and `kind`, so a reload or a shared link repeats the search. */
function readQuery(): { q: string; kind: string } {
  const params = new URLSearchParams(location.search);
  return { q: params.get('q') ?? '', kind: params.get('kind') ?? '' };
}

/** A snippet with the matched words marked, built as elements: the API's text is never parsed as HTML. */
export function Snippet({ snippet }: { snippet: string }) {
  return (
    <p class="snippet">
      {snippetParts(snippet).map((part, index) => (part.mark ? <mark key={index}>{part.text}</mark> : part.text))}
    </p>
  );
}

/** Search what the service knows about the website (as the next publish would export it), best first. */
export function WebsiteKnowledgePage({ website }: WebsitePageProps) {
  const [query, setQuery] = useState(readQuery);
  const [text, setText] = useState(query.q);
  const [kind, setKind] = useState(query.kind);
  const {
    items: hits,
    cursor,
    error,
    load: search,
    reset,
  } = usePagedList<Hit>((after) =>
    listPath(`/v1/websites/${encodeURIComponent(website.id)}/knowledge/search`, {
      q: query.q,
      kind: query.kind || undefined,
      limit: 20,
      cursor: after,
    }),
  );

  useEffect(() => {
    const update = () => {
      const next = readQuery();
      setQuery(next);
      setText(next.q);
      setKind(next.kind);
    };
    addEventListener('popstate', update);
    return () => removeEventListener('popstate', update);
  }, []);

  useEffect(() => {
    reset();
    if (query.q.trim()) void search();
  }, [website.id, query.q, query.kind]);

  function submit(event: Event) {
    event.preventDefault();
    const params = new URLSearchParams();
    if (text.trim()) params.set('q', text.trim());
    if (kind) params.set('kind', kind);
    const search = params.toString();
    navigate(`${websitePath(website.id, 'knowledge')}${search ? `?${search}` : ''}`);
  }

  return (
    <>
      <h1 tabIndex={-1}>Knowledge</h1>
      <form role="search" class="search" onSubmit={submit}>
        <label>
          Search the website's knowledge
          <input type="search" name="q" value={text} maxLength={500} onInput={(e) => setText(e.currentTarget.value)} />
          <small>All words must match; "quoted words" match as a phrase.</small>
        </label>
        <label>
          Show
          <select value={kind} onChange={(e) => setKind(e.currentTarget.value)}>
            <option value="">Everything</option>
            <option value="entity">Entities</option>
            <option value="fact">Facts</option>
            <option value="chunk">Text</option>
          </select>
        </label>
        <button type="submit">Search</button>
      </form>
      <ErrorMessage error={error} />
      {!query.q.trim() && (
        <p class="empty">
          Type words to find the entities, facts and text the service extracted from the website's pages. Nothing there?
          Push content first and watch its job under <a href={websitePath(website.id, 'jobs')}>Jobs</a>.
        </p>
      )}
      {query.q.trim() && hits === undefined && !error && <p aria-busy="true">Searching…</p>}
      {hits && hits.length === 0 && (
        <p class="empty">
          Nothing matches “{query.q}”. Try fewer or other words; content pushed just now appears once its ingest job has
          finished.
        </p>
      )}
      {hits && hits.length > 0 && (
        <ol class="cards hits" aria-label={`Results for ${query.q}`}>
          {hits.map((hit) => (
            <HitCard key={hit.id} websiteId={website.id} hit={hit} />
          ))}
        </ol>
      )}
      {cursor && (
        <button type="button" class="secondary" onClick={() => void search(cursor)}>
          Show more results
        </button>
      )}
    </>
  );
}

function HitCard({ websiteId, hit }: { websiteId: string; hit: Hit }) {
  const entityId = hit.kind === 'entity' ? hit.id : hit.entity_id;
  return (
    <li>
      <span class="meta">
        {KIND_LABELS[hit.kind]} · {hit.language}
      </span>
      <strong>{entityId ? <a href={entityPath(websiteId, entityId)}>{hit.title}</a> : hit.title}</strong>
      <Snippet snippet={hit.snippet} />
      {hit.source_url && (
        <span class="meta">
          Source: <a href={hit.source_url}>{hit.source_url}</a>
        </span>
      )}
    </li>
  );
}
