import { NotBuiltYet } from './placeholder.js';

export function OrganizationMembersPage(_props: { organizationId: string }) {
  return <NotBuiltYet title="Members" />;
}
