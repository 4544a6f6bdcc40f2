import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { AccountPage } from './account-page.js';
import type { User } from './api.js';
import { ForgotPasswordPage } from './forgot-password-page.js';
import { InvitationPage } from './invitation-page.js';
import { OrganizationApiKeysPage } from './organization-api-keys-page.js';
import { OrganizationAuditPage } from './organization-audit-page.js';
import { OrganizationLayout } from './organization-layout.js';
import { OrganizationListPage } from './organization-list-page.js';
import { OrganizationMembersPage } from './organization-members-page.js';
import { OrganizationPlanPage } from './organization-plan-page.js';
import { OrganizationWebsitesPage } from './organization-websites-page.js';
import { ResetPasswordPage } from './reset-password-page.js';
import { ANONYMOUS_PAGES, BASE, followLink, type Route, useRoute, type WebsiteSection } from './router.js';
import { currentUser, refresh, signOut, subscribe } from './session.js';
import { SignInPage } from './sign-in-page.js';
import { SignUpPage } from './sign-up-page.js';
import { TransferPage } from './transfer-page.js';
import { VerifyEmailPage } from './verify-email-page.js';
import { WebsiteAnalyticsPage } from './website-analytics-page.js';
import { WebsiteConnectorsPage } from './website-connectors-page.js';
import { WebsiteEntityPage } from './website-entity-page.js';
import { WebsiteJobsPage } from './website-jobs-page.js';
import { WebsiteKnowledgePage } from './website-knowledge-page.js';
import { WebsiteLayout, type WebsitePageProps } from './website-layout.js';
import { WebsiteNodePage } from './website-node-page.js';
import { WebsiteOverviewPage } from './website-overview-page.js';
import { WebsiteVerificationPage } from './website-verification-page.js';
import { WebsiteWebhooksPage } from './website-webhooks-page.js';

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

const WEBSITE_PAGES: Record<WebsiteSection, (props: WebsitePageProps) => ComponentChildren> = {
  overview: WebsiteOverviewPage,
  verification: WebsiteVerificationPage,
  connectors: WebsiteConnectorsPage,
  jobs: WebsiteJobsPage,
  node: WebsiteNodePage,
  knowledge: WebsiteKnowledgePage,
  analytics: WebsiteAnalyticsPage,
  webhooks: WebsiteWebhooksPage,
};

/** The page shown without a session: the one the address names, else sign in (which keeps the address). */
function AnonymousPage({ route }: { route: Route }) {
  const token = 'token' in route ? route.token : undefined;
  switch (route.page) {
    case 'sign-up':
      return <SignUpPage token={token} />;
    case 'forgot-password':
      return <ForgotPasswordPage token={token} />;
    case 'reset-password':
      return <ResetPasswordPage token={token} />;
    case 'verify-email':
      return <VerifyEmailPage token={token} />;
    case 'invitation':
      return (
        <SignInPage intro="You were invited to an organization. Sign in, or create an account with the invited address: you join once the address is confirmed." />
      );
    case 'transfer':
      return (
        <SignInPage intro="An organization is being transferred to you. Sign in with the address the mail came to: this page comes back to accept it." />
      );
    default:
      return <SignInPage />;
  }
}

function SignedInPage({ route }: { route: Route }) {
  switch (route.page) {
    case 'organizations':
    case 'sign-in':
    case 'sign-up':
      return <OrganizationListPage />;
    case 'account':
      return <AccountPage />;
    case 'verify-email':
      return <VerifyEmailPage token={route.token} />;
    case 'forgot-password':
      return <ForgotPasswordPage token={route.token} />;
    case 'reset-password':
      return <ResetPasswordPage token={route.token} />;
    case 'invitation':
      return <InvitationPage token={route.token} />;
    case 'transfer':
      return <TransferPage token={route.token} />;
    case 'websites':
    case 'members':
    case 'api-keys':
    case 'plan':
    case 'audit': {
      const { organizationId, page } = route;
      return (
        <OrganizationLayout organizationId={organizationId} section={page}>
          {(organization) =>
            page === 'websites' ? (
              <OrganizationWebsitesPage organizationId={organizationId} organization={organization} />
            ) : page === 'members' ? (
              <OrganizationMembersPage organizationId={organizationId} organization={organization} />
            ) : page === 'api-keys' ? (
              <OrganizationApiKeysPage organizationId={organizationId} organization={organization} />
            ) : page === 'plan' ? (
              <OrganizationPlanPage organizationId={organizationId} organization={organization} />
            ) : (
              <OrganizationAuditPage organizationId={organizationId} organization={organization} />
            )
          }
        </OrganizationLayout>
      );
    }
    case 'website': {
      const Page = WEBSITE_PAGES[route.section];
      return (
        <WebsiteLayout websiteId={route.websiteId} section={route.section}>
          {(props) => <Page {...props} />}
        </WebsiteLayout>
      );
    }
    case 'entity':
      return (
        <WebsiteLayout websiteId={route.websiteId} section="entity">
          {(props) => <WebsiteEntityPage {...props} entityId={route.entityId} />}
        </WebsiteLayout>
      );
    default:
      return (
        <>
          <h1 tabIndex={-1}>Page not found</h1>
          <p>
            Nothing lives at this address. <a href={`${BASE}/organizations`}>Go to your organizations</a>.
          </p>
        </>
      );
  }
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
  if (!user)
    return (
      <div onClick={followLink}>
        <AnonymousPage route={route} />
      </div>
    );
  const anonymousOnly = (ANONYMOUS_PAGES as readonly string[]).includes(route.page) && route.page !== 'verify-email';
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
          <a
            href={`${BASE}/organizations`}
            aria-current={route.page === 'organizations' || anonymousOnly ? 'page' : undefined}
          >
            Organizations
          </a>
          <a href={`${BASE}/account`} aria-current={route.page === 'account' ? 'page' : undefined}>
            Account
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
        <SignedInPage route={route} />
      </main>
    </div>
  );
}
