import { useEffect, useState } from 'preact/hooks';

/** Where the daemon serves the console; every page is a path below it (index.html answers them all). */
export const BASE = '/console';

/** The page a path names. */
export type Route =
  | { page: 'organizations' }
  | { page: 'websites'; organizationId: string }
  | { page: 'sign-in' }
  | { page: 'not-found' };

export function parseRoute(pathname: string): Route {
  const rest = pathname.startsWith(BASE) ? pathname.slice(BASE.length) : pathname;
  const parts = rest.split('/').filter(Boolean).map(decodeURIComponent);
  if (parts.length === 0 || (parts.length === 1 && parts[0] === 'organizations')) return { page: 'organizations' };
  if (parts.length === 1 && parts[0] === 'sign-in') return { page: 'sign-in' };
  if (parts.length === 3 && parts[0] === 'organizations' && parts[2] === 'websites')
    return { page: 'websites', organizationId: parts[1]! };
  return { page: 'not-found' };
}

export function websitesPath(organizationId: string): string {
  return `${BASE}/organizations/${encodeURIComponent(organizationId)}/websites`;
}

export function navigate(path: string): void {
  if (path === location.pathname) return;
  history.pushState(null, '', path);
  dispatchEvent(new PopStateEvent('popstate'));
}

/** The current route, following links and the back button. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.pathname));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location.pathname));
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
  navigate(url.pathname);
}
