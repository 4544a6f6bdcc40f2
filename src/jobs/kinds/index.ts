import type { JobDefinition } from '../define.js';
import { accountsPruneJob } from './accounts-prune.js';
import { analyticsAggregateJob } from './analytics-aggregate.js';
import { contentIngestJob } from './content-ingest.js';
import { maintenanceExpireJob } from './maintenance-expire.js';
import { jobsPruneJob } from './maintenance-jobs-prune.js';
import { rateLimitsPruneJob } from './maintenance-rate-limits-prune.js';
import { republishJob } from './node-republish.js';
import { orgEraseJob } from './org-erase.js';
import { orgTransferExecuteJob } from './org-transfer-execute.js';
import { connectorHeartbeatCheckJob } from './connector-heartbeat-check.js';
import { webhookDeliverJob } from './webhook-deliver.js';
import { webhooksDispatchJob } from './webhooks-dispatch.js';
import { webhooksPruneJob } from './maintenance-webhooks-prune.js';
import { verificationCheckJob } from './verification-check.js';

/**
 * Every job kind the worker runs, one file each in this folder (docs/contributing.md). A new kind
 * is a file exporting `defineJob({...})` plus one line here; its schedule, if any, comes with it.
 */
export const JOBS: readonly JobDefinition[] = [
  contentIngestJob,
  republishJob,
  maintenanceExpireJob,
  rateLimitsPruneJob,
  jobsPruneJob,
  accountsPruneJob,
  orgTransferExecuteJob,
  orgEraseJob,
  webhooksDispatchJob,
  webhookDeliverJob,
  webhooksPruneJob,
  connectorHeartbeatCheckJob,
  verificationCheckJob,
  analyticsAggregateJob,
];

/**
 * Periodic jobs of the contract whose work has not arrived yet. They are not defined, so not
 * scheduled: a no-op run would show in `nodectl jobs list` as succeeded work that never
 * happened. The issue that gives one a handler adds its file above and drops it here.
 */
export const PLANNED_PERIODIC_JOBS: ReadonlyArray<{ kind: string; intervalSeconds: number }> = [];
