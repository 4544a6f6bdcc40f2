import type { Db } from '../../platform/storage/sqlite.js';
import { appendAudit } from '../records/audit.js';
import type { OrganizationRecord } from '../records/record-types.js';
import { setOrganizationPlan } from '../records/organizations.js';

/**
 * `nodectl admin org set-plan`: the operator's plan change (billing is not offered,
 * docs/contract.md#plans), recorded in the organization's audit log as the operator's.
 */
export function setPlanAsOperator(
  db: Db,
  organizationId: string,
  plan: OrganizationRecord['plan'],
  now = Date.now(),
): ReturnType<typeof setOrganizationPlan> {
  return db
    .transaction(() => {
      const changed = setOrganizationPlan(db, organizationId, plan);
      appendAudit(
        db,
        {
          organizationId,
          actor: { kind: 'operator' },
          action: 'organization.plan_changed',
          target: organizationId,
          details: { plan_before: changed.previous, plan },
        },
        now,
      );
      return changed;
    })
    .immediate();
}
