import { NotBuiltYet } from './placeholder.js';

export function OrganizationAuditPage(_props: { organizationId: string }) {
  return <NotBuiltYet title="Audit log" />;
}
