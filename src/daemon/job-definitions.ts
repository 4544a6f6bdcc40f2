import { type JobDefinition, jobsPruneJob } from '../platform/job-runtime/index.js';
import { rateLimitsPruneJob } from '../control/access/index.js';
import { accountMailJob, accountsPruneJob } from '../control/accounts/index.js';
import { analyticsAggregateJob } from '../control/analytics/index.js';
import { contentIngestJob } from '../ingest/graph/index.js';
import { embeddingsComputeJob } from '../ingest/embeddings/index.js';
import { maintenanceExpireJob } from '../control/records/index.js';
import { republishJob } from '../output/publish/index.js';
import { orgEraseJob, orgTransferExecuteJob } from '../control/organizations/index.js';
import { connectorHeartbeatCheckJob } from '../control/connectors/index.js';
import { webhookDeliverJob, webhooksDispatchJob, webhooksPruneJob } from '../control/webhooks/index.js';
import { verificationCheckJob } from '../control/verification/index.js';

/**
 * Every job kind the worker runs. Each feature owns its kinds (a `*-job.ts` file exporting
 * `defineJob({...})`, exported by its index.ts); a new kind adds one line here, with its schedule.
 */
export const JOBS: readonly JobDefinition[] = [
  contentIngestJob,
  embeddingsComputeJob,
  republishJob,
  maintenanceExpireJob,
  rateLimitsPruneJob,
  jobsPruneJob,
  accountsPruneJob,
  accountMailJob,
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
