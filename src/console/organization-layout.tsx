import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Organization } from './api.js';
import { ErrorMessage } from './error-message.js';
import { listOrganizations } from './organization-list-page.js';
import { navigate, organizationPath, type OrganizationSection } from './router.js';

const SECTION_LABELS: Record<OrganizationSection, string> = {
  websites: 'Websites',
  members: 'Members',
  'api-keys': 'API keys',
  plan: 'Plan and usage',
  audit: 'Audit log',
};

/** The organization's sections as tabs, and a switcher to the same section of another organization. */
export function OrganizationLayout({
  organizationId,
  section,
  children,
}: {
  organizationId: string;
  section: OrganizationSection;
  children: (organization: Organization | undefined) => ComponentChildren;
}) {
  const [organizations, setOrganizations] = useState<Organization[]>();
  const [error, setError] = useState<unknown>();
  useEffect(() => void listOrganizations().then((page) => setOrganizations(page.items), setError), []);
  const organization = organizations?.find((o) => o.id === organizationId);

  return (
    <>
      {organizations && organizations.length > 1 && (
        <label class="switcher">
          Organization
          <select value={organizationId} onChange={(e) => navigate(organizationPath(e.currentTarget.value, section))}>
            {organizations.map((o) => (
              <option key={o.id} value={o.id}>
                {o.name}
              </option>
            ))}
          </select>
        </label>
      )}
      <nav class="tabs" aria-label="Organization">
        {Object.entries(SECTION_LABELS).map(([key, label]) => (
          <a
            key={key}
            href={organizationPath(organizationId, key as OrganizationSection)}
            aria-current={key === section ? 'page' : undefined}
          >
            {label}
          </a>
        ))}
      </nav>
      <ErrorMessage error={error} />
      {children(organization)}
    </>
  );
}
