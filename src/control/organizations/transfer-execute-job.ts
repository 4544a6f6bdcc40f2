import { defineJob } from '../../platform/job-runtime/index.js';
import { orgTransferExecuteKind } from './job-kinds.js';
import { executeTransfer } from './transfers.js';

/**
 * Moves an accepted organization transfer: the recipient becomes organization_owner,
 * the previous owner organization_admin (docs/organizations.md "Transfer").
 */
export const orgTransferExecuteJob = defineJob({
  ...orgTransferExecuteKind,
  lane: 'maintenance',
  handler: async (payload, { services }) => executeTransfer(services, payload.transfer_id),
});
