import { z } from 'zod';
import type { JobKind } from '../../platform/jobs/payload.js';

/**
 * The name and payload of the organization jobs, which the routes enqueue; their definitions
 * (lane, handler) are src/control/organizations/transfer-execute-job.ts and org-erase.ts, which import this
 * feature, so the feature does not import them back.
 */
export const orgTransferExecuteKind = {
  kind: 'org.transfer.execute',
  payload: z.object({ transfer_id: z.string().min(1) }),
} satisfies JobKind;

/** The payload names the erasure, not the organization: once the job is done its row holds no id of the organization. */
export const orgEraseKind = {
  kind: 'org.erase',
  payload: z.object({ erasure_id: z.string().min(1) }),
} satisfies JobKind;
