import { useEffect, useState } from 'preact/hooks';

/** Where the daemon serves the console; every page is a path below it (index.html answers them all). */
export const BASE = '/console';

/** The pages of one organization, each at /organizations/:id/<section>. */
export const ORGANIZATION_SECTIONS = ['websites', 'members', 'api-keys', 'plan', 'audit'] as const;
export type OrganizationSection = (typeof ORGANIZATION_SECTIONS)[number];

/** The pages of one website, each at /websites/:id/<section> (the overview at /websites/:id). */
export const WEBSITE_SECTIONS = [
  'overview',
  'verification',
  'connectors',
  'jobs',
  'node',
  'knowledge',
  'analytics',
  'webhooks',
] as const;
export type WebsiteSection = (typeof WEBSITE_SECTIONS)[number];

/** Pages shown without a session: the links mails carry land on some of them. */
export const ANONYMOUS_PAGES = ['sign-in', 'sign-up', 'forgot-password', 'reset-password', 'verify-email'] as const;
export type AnonymousPage = (typeof ANONYMOUS_PAGES)[number];

/** The page a path names; `token` is the query's token (the mailed links carry one). */
export type Route =
  | { page: AnonymousPage; token?: string }
  | { page: 'organizations' }
  | { page: 'account' }
  | { page: 'invitation'; token?: string }
  | { page: 'transfer'; token?: string }
  | { page: OrganizationSection; organizationId: string }
  | { page: 'website'; websiteId: string; section: WebsiteSection }
  | { page: 'entity'; websiteId: string; entityId: string }
  | { page: 'not-found' };

function isOneOf<T extends string>(list: readonly T[], value: string | undefined): value is T {
  return value !== undefined && (list as readonly string[]).includes(value);
}

export function parseRoute(pathname: string, search = ''): Route {
  const rest = pathname.startsWith(BASE) ? pathname.slice(BASE.length) : pathname;
  const parts = rest.split('/').filter(Boolean).map(decodeURIComponent);
  const token = new URLSearchParams(search).get('token') ?? undefined;
  const [first, second, third, fourth] = parts;
  if (parts.length === 0 || (parts.length === 1 && first === 'organizations')) return { page: 'organizations' };
  if (parts.length === 1 && isOneOf(ANONYMOUS_PAGES, first)) return token ? { page: first, token } : { page: first };
  if (parts.length === 1 && first === 'account') return { page: 'account' };
  if (parts.length === 2 && second === 'accept' && (first === 'invitations' || first === 'transfers')) {
    const page = first === 'invitations' ? 'invitation' : 'transfer';
    return token ? { page, token } : { page };
  }
  if (parts.length === 3 && first === 'organizations' && isOneOf(ORGANIZATION_SECTIONS, third))
    return { page: third, organizationId: second! };
  if (first === 'websites' && second) {
    if (parts.length === 2) return { page: 'website', websiteId: second, section: 'overview' };
    if (parts.length === 3 && third !== 'overview' && isOneOf(WEBSITE_SECTIONS, third))
      return { page: 'website', websiteId: second, section: third };
    if (parts.length === 4 && third === 'entities') return { page: 'entity', websiteId: second, entityId: fourth! };
  }
  return { page: 'not-found' };
}

export function organizationPath(organizationId: string, section: OrganizationSection = 'websites'): string {
  return `${BASE}/organizations/${encodeURIComponent(organizationId)}/${section}`;
}

export function websitesPath(organizationId: string): string {
  return organizationPath(organizationId, 'websites');
}

export function websitePath(websiteId: string, section: WebsiteSection = 'overview'): string {
  const root = `${BASE}/websites/${encodeURIComponent(websiteId)}`;
  return section === 'overview' ? root : `${root}/${section}`;
}

export function entityPath(websiteId: string, entityId: string): string {
  return `${BASE}/websites/${encodeURIComponent(websiteId)}/entities/${encodeURIComponent(entityId)}`;
}

export function navigate(path: string): void {
  if (path === location.pathname + location.search) return;
  history.pushState(null, '', path);
  dispatchEvent(new PopStateEvent('popstate'));
}

/** The current route, following links and the back button. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.pathname, location.search));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.pathname, location.search));
    addEventListener('popstate', update);
    return () => removeEventListener('popstate', update);
  }, []);
  return route;
}

/** A click on an in-console link changes the page without a reload (a modified click keeps the browser's own). */
export function followLink(event: MouseEvent): void {
  const anchor = (event.target as Element | null)?.closest('a');
  if (!anchor || event.defaultPrevented || event.button !== 0) return;
  if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const url = new URL(anchor.href, location.href);
  if (url.origin !== location.origin || !url.pathname.startsWith(`${BASE}/`)) return;
  event.preventDefault();
  navigate(url.pathname + url.search);
}
