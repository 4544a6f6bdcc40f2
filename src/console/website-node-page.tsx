import { useEffect, useState } from 'preact/hooks';
import { ApiFailure, call, listPath } from './api.js';
import { postWithProgress } from './api-stream.js';
import { ErrorMessage } from './error-message.js';
import { progressText } from './node-text.js';
import { websitePath } from './router.js';
import { useSubmit } from './use-submit.js';
import type { WebsitePageProps } from './website-layout.js';
import { usePagedList } from './use-paged-list.js';

/** GET /v1/websites/:id/node/preview (src/output/knowledge/api-schemas.ts NodePreviewSchema). */
interface Preview {
  files: Array<{ path: string; bytes: number; records?: number; state: 'new' | 'changed' | 'unchanged' }>;
  removed_files: string[];
  same_as_live: boolean;
  counts: { entities: number; facts: number; relationships: number; chunks: number; qa: number; sources: number };
  live_version: { node_version: string; node_version_label: string | null; generated_at: string } | null;
  node_url: string;
}

/** GET /v1/websites/:id/versions (src/output/publish/schemas.ts PublishedVersionSchema). */
interface Version {
  node_version: string;
  node_version_label: string | null;
  generated_at: string;
  live: boolean;
  purged: boolean;
}

/** POST /v1/websites/:id/publish: the fields this page shows. */
interface PublishResult {
  versionUlid: string;
  versionLabel: string;
  changes: Array<{ path: string; change: 'added' | 'changed' | 'removed' | 'unchanged' }>;
  recordCount: number;
  cdnPath: string;
  alreadyLive: boolean;
  rejected: { total: number };
}

interface Progress {
  stage: string;
  done: number;
  total: number;
  pass?: string;
}

const FILE_STATES = { new: 'New', changed: 'Changed', unchanged: 'Unchanged' } as const;

/** The node: what the next publish would change, publish with live progress, versions, rollback and takedown. */
export function WebsiteNodePage({ website }: WebsitePageProps) {
  const base = `/v1/websites/${encodeURIComponent(website.id)}`;
  const [preview, setPreview] = useState<Preview | null>();
  const [previewError, setPreviewError] = useState<unknown>();
  const {
    items: versions,
    cursor,
    error: versionsError,
    load: loadVersions,
  } = usePagedList<Version>((after) => listPath(`${base}/versions`, { limit: 20, cursor: after }));
  const [notice, setNotice] = useState('');

  async function loadPreview() {
    setPreviewError(undefined);
    try {
      setPreview(await call<Preview>('GET', `${base}/node/preview`));
    } catch (failure) {
      // Nothing ingested yet: no preview, which the empty state explains.
      if (failure instanceof ApiFailure && failure.code === 'publish.nothing_to_publish') setPreview(null);
      else setPreviewError(failure);
    }
  }
  const reloadAll = () => Promise.all([loadPreview(), loadVersions()]);
  useEffect(() => {
    void reloadAll();
  }, [website.id]);

  return (
    <>
      <h1 tabIndex={-1}>Node</h1>
      <p role="status" class="notice">
        {notice}
      </p>
      <section aria-labelledby="preview-heading">
        <h2 id="preview-heading">Next version</h2>
        <ErrorMessage error={previewError} />
        {preview === undefined && !previewError && <p aria-busy="true">Compiling the preview…</p>}
        {preview === null && (
          <p class="empty">
            Nothing to publish yet: push content with a connector first, then watch its job finish under{' '}
            <a href={websitePath(website.id, 'jobs')}>Jobs</a>.
          </p>
        )}
        {preview && <PreviewView preview={preview} />}
        {preview && (
          <PublishForm
            base={base}
            sameAsLive={preview.same_as_live}
            onPublished={(result) => {
              setNotice(
                result.alreadyLive
                  ? `Nothing changed: version ${result.versionLabel} stays live.`
                  : `Published version ${result.versionLabel} (${result.recordCount} records).`,
              );
              void reloadAll();
            }}
          />
        )}
      </section>

      <section aria-labelledby="versions-heading">
        <h2 id="versions-heading">Versions</h2>
        <ErrorMessage error={versionsError} />
        {versions === undefined && !versionsError && <p aria-busy="true">Loading…</p>}
        {versions && versions.length === 0 && (
          <p class="empty">No version published yet: publish the next version above.</p>
        )}
        {versions && versions.length > 0 && (
          <VersionsTable
            base={base}
            versions={versions}
            onRolledBack={(label) => {
              setNotice(`Version ${label} is live again.`);
              void reloadAll();
            }}
          />
        )}
        {cursor && (
          <button type="button" class="secondary" onClick={() => void loadVersions(cursor)}>
            Show more versions
          </button>
        )}
      </section>

      {preview?.live_version && <LiveFiles preview={preview} />}

      <Takedown
        base={base}
        domain={website.domain}
        onTakenDown={() => {
          setNotice('The node is taken down: its files answer 410. Publish or roll back to serve it again.');
          void reloadAll();
        }}
      />
    </>
  );
}

function PreviewView({ preview }: { preview: Preview }) {
  const changed = preview.files.filter((file) => file.state !== 'unchanged');
  const live = preview.live_version;
  return (
    <>
      <p>
        {live
          ? `Against the live version ${live.node_version_label ?? live.node_version}: `
          : 'Nothing is live yet: every file is new. '}
        {preview.same_as_live
          ? 'a publish would find nothing changed.'
          : `${changed.length} file(s) new or changed, ${preview.removed_files.length} removed.`}
      </p>
      <p class="meta">
        {preview.counts.entities} entities, {preview.counts.facts} facts, {preview.counts.relationships} relationships,{' '}
        {preview.counts.chunks} text chunks, {preview.counts.qa} questions and answers, {preview.counts.sources}{' '}
        sources.
      </p>
      {/* Closed by default: a site has a few dozen files, and the publish form follows. */}
      <details>
        <summary>Every file of the next version ({preview.files.length + preview.removed_files.length})</summary>
        <table>
          <caption class="visually-hidden">Files of the next version against the live one</caption>
          <thead>
            <tr>
              <th scope="col">File</th>
              <th scope="col">Change</th>
              <th scope="col">Size</th>
            </tr>
          </thead>
          <tbody>
            {preview.files.map((file) => (
              <tr key={file.path}>
                <td>{file.path}</td>
                <td class={`change-${file.state}`}>{FILE_STATES[file.state]}</td>
                <td>
                  {file.bytes} bytes{file.records !== undefined ? `, ${file.records} records` : ''}
                </td>
              </tr>
            ))}
            {preview.removed_files.map((path) => (
              <tr key={`removed ${path}`}>
                <td>{path}</td>
                <td class="change-removed">Removed</td>
                <td>—</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </>
  );
}

function PublishForm({
  base,
  sameAsLive,
  onPublished,
}: {
  base: string;
  sameAsLive: boolean;
  onPublished: (result: PublishResult) => void;
}) {
  const [force, setForce] = useState(false);
  // The last event of each stage, in the order the stages came: the list stays after the publish ends.
  const [stages, setStages] = useState<Progress[]>([]);
  const { busy, error, submit } = useSubmit(async () => {
    setStages([]);
    const result = await postWithProgress<PublishResult>(`${base}/publish`, force ? { force: true } : {}, (data) => {
      const event = data as Partial<Progress> | undefined;
      if (typeof event?.stage !== 'string' || typeof event.done !== 'number' || typeof event.total !== 'number') return;
      const step = event as Progress;
      setStages((list) =>
        list.some((s) => s.stage === step.stage)
          ? list.map((s) => (s.stage === step.stage ? step : s))
          : [...list, step],
      );
    });
    setForce(false);
    onPublished(result);
  });
  const current = busy ? stages[stages.length - 1] : undefined;
  return (
    <form onSubmit={submit} class="inline" aria-label="Publish">
      <h2>Publish</h2>
      {sameAsLive && (
        <label class="check">
          <input type="checkbox" checked={force} onChange={(e) => setForce(e.currentTarget.checked)} />
          Publish a new version even though nothing changed
        </label>
      )}
      {busy && (
        <progress
          aria-label="Publish progress"
          max={current?.total || undefined}
          value={current && current.total > 0 ? current.done : undefined}
        />
      )}
      <p role="status">{busy ? (current ? progressText(current) : 'Starting the publish…') : ''}</p>
      {stages.length > 0 && (
        <ol class="stages" aria-label="Publish steps">
          {stages.map((step) => (
            <li key={step.stage}>{progressText(step)}</li>
          ))}
        </ol>
      )}
      <ErrorMessage error={error} />
      <button type="submit" disabled={busy}>
        {busy ? 'Publishing…' : 'Publish the next version'}
      </button>
    </form>
  );
}

function VersionsTable({
  base,
  versions,
  onRolledBack,
}: {
  base: string;
  versions: Version[];
  onRolledBack: (label: string) => void;
}) {
  const [asked, setAsked] = useState<Version>();
  const { busy, error, submit } = useSubmit(async () => {
    if (!asked) return;
    await call('POST', `${base}/rollback`, { version: asked.node_version });
    setAsked(undefined);
    onRolledBack(asked.node_version_label ?? asked.node_version);
  });
  return (
    <>
      <table>
        <caption class="visually-hidden">Published versions, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Version</th>
            <th scope="col">Built</th>
            <th scope="col">State</th>
            <th scope="col">Action</th>
          </tr>
        </thead>
        <tbody>
          {versions.map((version) => {
            const label = version.node_version_label ?? version.node_version;
            return (
              <tr key={version.node_version}>
                <td>
                  {label}
                  <span class="meta"> {version.node_version}</span>
                </td>
                <td>{new Date(version.generated_at).toLocaleString()}</td>
                <td>{version.live ? <strong>Live</strong> : version.purged ? 'Purged (erasure)' : 'Stored'}</td>
                <td>
                  {!version.live && !version.purged && (
                    <button type="button" class="secondary" onClick={() => setAsked(version)}>
                      Roll back to {label}
                    </button>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {asked && (
        <form onSubmit={submit} class="inline confirm" aria-label="Confirm the rollback">
          <h2>Roll back to {asked.node_version_label ?? asked.node_version}?</h2>
          <p>The node will serve this version again at once; the current one stays stored and can be restored.</p>
          <ErrorMessage error={error} />
          <div class="actions">
            <button type="submit" disabled={busy}>
              Roll back now
            </button>
            <button type="button" class="secondary" onClick={() => setAsked(undefined)}>
              Cancel
            </button>
          </div>
        </form>
      )}
    </>
  );
}

/** The public files of the live version, as the daemon (or the CDN in front of it) serves them. */
function LiveFiles({ preview }: { preview: Preview }) {
  const live = new Set(['manifest.json', ...preview.files.filter((f) => f.state !== 'new').map((f) => f.path)]);
  for (const path of preview.removed_files) live.add(path);
  return (
    <section aria-labelledby="live-heading">
      <h2 id="live-heading">Live files</h2>
      <p class="meta">
        Served at <a href={`${preview.node_url}/manifest.json`}>{preview.node_url}/</a>
      </p>
      <ul class="files">
        {[...live].sort().map((path) => (
          <li key={path}>
            <a href={`${preview.node_url}/${path}`}>{path}</a>
          </li>
        ))}
      </ul>
    </section>
  );
}

function Takedown({ base, domain, onTakenDown }: { base: string; domain: string; onTakenDown: () => void }) {
  const [typed, setTyped] = useState('');
  const { busy, error, submit } = useSubmit(async () => {
    await call('DELETE', `${base}/node`);
    setTyped('');
    onTakenDown();
  });
  return (
    <form onSubmit={submit} class="inline danger" aria-label="Take the node down">
      <h2>Take the node down</h2>
      <p>
        Its public files then answer 410 Gone. The versions stay stored: a publish or a rollback serves the node again.
      </p>
      <label>
        Type the domain, {domain}, to confirm
        <input value={typed} autocomplete="off" onInput={(e) => setTyped(e.currentTarget.value)} />
      </label>
      <ErrorMessage error={error} />
      <button type="submit" class="danger" disabled={busy || typed.trim() !== domain}>
        Take the node down
      </button>
    </form>
  );
}
