import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { call, type Website } from './api.js';
import { ErrorMessage } from './error-message.js';
import { organizationPath, websitePath, type WebsiteSection } from './router.js';

/** What every page of one website receives: the website as last read, and a way to read it again. */
export interface WebsitePageProps {
  website: Website;
  reload: () => Promise<void>;
}

const SECTION_LABELS: Record<WebsiteSection, string> = {
  overview: 'Overview',
  verification: 'Verification',
  connectors: 'Connectors',
  jobs: 'Jobs',
  node: 'Node',
  knowledge: 'Knowledge',
  analytics: 'Analytics',
  webhooks: 'Webhooks',
};

/** Reads the website once per address, then shows its sections as tabs above the page. */
export function WebsiteLayout({
  websiteId,
  section,
  children,
}: {
  websiteId: string;
  section: WebsiteSection | 'entity';
  children: (props: WebsitePageProps) => ComponentChildren;
}) {
  const [website, setWebsite] = useState<Website>();
  const [error, setError] = useState<unknown>();
  const reload = async () => {
    try {
      setWebsite(await call<Website>('GET', `/v1/websites/${encodeURIComponent(websiteId)}`));
      setError(undefined);
    } catch (failure) {
      setError(failure);
    }
  };
  useEffect(() => {
    setWebsite(undefined);
    void reload();
  }, [websiteId]);

  if (error && !website)
    return (
      <>
        <h1 tabIndex={-1}>Website</h1>
        <ErrorMessage error={error} />
      </>
    );
  if (!website) return <p aria-busy="true">Loading…</p>;
  return (
    <>
      <p class="crumbs">
        <a href={organizationPath(website.organizationId)}>Websites</a> › {website.domain}
      </p>
      <nav class="tabs" aria-label="Website">
        {Object.entries(SECTION_LABELS).map(([key, label]) => (
          <a
            key={key}
            href={websitePath(websiteId, key as WebsiteSection)}
            aria-current={key === section ? 'page' : undefined}
          >
            {label}
          </a>
        ))}
      </nav>
      {children({ website, reload })}
    </>
  );
}
