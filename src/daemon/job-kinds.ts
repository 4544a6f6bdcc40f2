import type { JobDefinition } from '../platform/app/define-job.js';
import { accountsPruneJob } from '../control/accounts/prune-job.js';
import { analyticsAggregateJob } from '../control/analytics/aggregate-job.js';
import { contentIngestJob } from '../ingest/graph/content-ingest-job.js';
import { maintenanceExpireJob } from '../control/records/expire-job.js';
import { jobsPruneJob } from '../platform/app/jobs-prune-job.js';
import { rateLimitsPruneJob } from '../platform/app/rate-limits-prune-job.js';
import { republishJob } from '../output/publish/republish-job.js';
import { orgEraseJob } from '../control/organizations/erase-job.js';
import { orgTransferExecuteJob } from '../control/organizations/transfer-execute-job.js';
import { connectorHeartbeatCheckJob } from '../control/connectors/heartbeat-check-job.js';
import { webhookDeliverJob } from '../control/webhooks/deliver-job.js';
import { webhooksDispatchJob } from '../control/webhooks/dispatch-job.js';
import { webhooksPruneJob } from '../control/webhooks/prune-job.js';
import { verificationCheckJob } from '../control/verification/check-job.js';

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
