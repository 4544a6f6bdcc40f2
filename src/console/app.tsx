import { useEffect, useState } from 'preact/hooks';
import type { User } from './api.js';
import { OrganizationsPage } from './organizations-page.js';
import { BASE, followLink, useRoute } from './router.js';
import { currentUser, refresh, signOut, subscribe } from './session.js';
import { SignInPage } from './sign-in-page.js';
import { WebsitesPage } from './websites-page.js';

/** The signed-in user, after the first refresh on load has said whether a session survives. */
function useSession(): { user: User | undefined; restoring: boolean } {
  const [user, setUser] = useState(currentUser());
  const [restoring, setRestoring] = useState(true);
  useEffect(() => {
    const unsubscribe = subscribe(setUser);
    refresh()
      .catch(() => false)
      .finally(() => setRestoring(false));
    return unsubscribe;
  }, []);
  return { user, restoring };
}

export function App() {
  const route = useRoute();
  const { user, restoring } = useSession();
  // A new page moves the keyboard focus to its heading, so Tab goes on from there and a screen reader reads it.
  useEffect(() => document.querySelector<HTMLElement>('main h1')?.focus(), [route, user, restoring]);

  if (restoring)
    return (
      <main class="page" aria-busy="true">
        <p>Loading…</p>
      </main>
    );
  if (!user) return <SignInPage />;
  return (
    <div onClick={followLink}>
      <a class="skip" href="#content">
        Skip to content
      </a>
      <header class="bar">
        <a class="brand" href={`${BASE}/`}>
          nodectl
        </a>
        <nav aria-label="Main">
          <a href={`${BASE}/organizations`} aria-current={route.page === 'organizations' ? 'page' : undefined}>
            Organizations
          </a>
        </nav>
        <span class="who">{user.email}</span>
        <button type="button" class="secondary" onClick={() => void signOut().catch(() => undefined)}>
          Sign out
        </button>
        <button
          type="button"
          class="secondary"
          onClick={() => void signOut({ everywhere: true }).catch(() => undefined)}
        >
          Sign out everywhere
        </button>
      </header>
      <main id="content" class="page">
        {route.page === 'websites' ? (
          <WebsitesPage organizationId={route.organizationId} />
        ) : route.page === 'organizations' || route.page === 'sign-in' ? (
          <OrganizationsPage />
        ) : (
          <>
            <h1 tabIndex={-1}>Page not found</h1>
            <p>
              Nothing lives at this address. <a href={`${BASE}/organizations`}>Go to your organizations</a>.
            </p>
          </>
        )}
      </main>
    </div>
  );
}
