import { NotBuiltYet } from './placeholder.js';

export function OrganizationApiKeysPage(_props: { organizationId: string }) {
  return <NotBuiltYet title="API keys" />;
}
