import { NotBuiltYet } from './placeholder.js';

export function OrganizationPlanPage(_props: { organizationId: string }) {
  return <NotBuiltYet title="Plan and usage" />;
}
