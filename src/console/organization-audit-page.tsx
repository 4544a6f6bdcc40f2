import { useEffect, useState } from 'preact/hooks';
import { call, listPath, type Page } from './api.js';
import {
  type ApiKey,
  type AuditEntry,
  describeAudit,
  type KnownNames,
  type Member,
  organizationApi,
  roleAtLeast,
  roleLabel,
  when,
  withLoggedNames,
} from './api-organizations.js';
import { ErrorMessage } from './error-message.js';
import type { OrganizationPageProps } from './organization-parts.js';
import { usePagedList } from './use-paged-list.js';

/** The first page of a list, or nothing when it is refused: names are a help, not a condition of the log. */
async function firstPage<T>(path: string): Promise<T[]> {
  try {
    return (await call<Page<T>>('GET', listPath(path, { limit: 100 }))).items;
  } catch {
    return [];
  }
}

/**
 * The audit log, newest first, 50 at a time ("Show more"): who did what to what, with user and
 * key ids put in words from the members and keys lists. The API takes no filter, so none is offered.
 */
export function OrganizationAuditPage({ organizationId, organization }: OrganizationPageProps) {
  const {
    items: entries,
    setItems: setEntries,
    cursor,
    error,
    load,
  } = usePagedList<AuditEntry>((after) =>
    listPath(organizationApi(organizationId, '/audit'), { limit: 50, cursor: after }),
  );
  const [names, setNames] = useState<KnownNames>({ users: new Map(), keys: new Map(), organizationId });
  const reads = roleAtLeast(organization?.role, 'organization_admin');

  async function loadNames() {
    const [members, keys] = await Promise.all([
      firstPage<Member>(organizationApi(organizationId, '/members')),
      firstPage<ApiKey>(organizationApi(organizationId, '/api-keys')),
    ]);
    setNames({
      users: new Map(members.map((m) => [m.userId, m.email])),
      keys: new Map(keys.map((k) => [k.id, k.name])),
      organizationId,
    });
  }

  useEffect(() => {
    setEntries(undefined);
    // The names first, so the entries never show ids that turn into names a moment later.
    if (reads) void loadNames().then(() => load());
  }, [organizationId, reads]);

  const title = <h1 tabIndex={-1}>Audit log{organization ? ` of ${organization.name}` : ''}</h1>;
  if (!organization) return title;
  if (!reads)
    return (
      <>
        {title}
        <p class="empty">
          Your role ({roleLabel(organization.role)}) does not read the audit log: an admin or owner of the organization
          does.
        </p>
      </>
    );

  const named = withLoggedNames({ ...names, organizationName: organization.name }, entries ?? []);
  return (
    <>
      {title}
      <ErrorMessage error={error} />
      {entries === undefined && !error && <p aria-busy="true">Loading…</p>}
      {entries && entries.length === 0 && <p class="empty">Nothing recorded yet.</p>}
      {entries && entries.length > 0 && (
        <ol class="audit" aria-label="Audit entries, newest first">
          {entries.map((entry) => {
            const words = describeAudit(entry, named);
            return (
              <li key={entry.id}>
                <time dateTime={entry.createdAt}>{when(entry.createdAt)}</time>
                <span>
                  <strong>{words.actor}</strong> {words.action}
                  {words.target && (
                    <>
                      : <span class="target">{words.target}</span>
                    </>
                  )}
                  {words.detail && <> ({words.detail})</>}
                </span>
                <span class="meta">
                  {entry.action}
                  {entry.requestId && ` · request ${entry.requestId}`}
                </span>
              </li>
            );
          })}
        </ol>
      )}
      {cursor && (
        <button type="button" class="secondary" onClick={() => void load(cursor)}>
          Show more entries
        </button>
      )}
    </>
  );
}
