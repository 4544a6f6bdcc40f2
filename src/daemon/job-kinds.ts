import type { JobDefinition } from '../platform/app/index.js';
import { accountsPruneJob } from '../control/accounts/index.js';
import { analyticsAggregateJob } from '../control/analytics/index.js';
import { contentIngestJob } from '../ingest/graph/index.js';
import { maintenanceExpireJob } from '../control/records/index.js';
import { jobsPruneJob } from '../platform/app/index.js';
import { rateLimitsPruneJob } from '../platform/app/index.js';
import { republishJob } from '../output/publish/index.js';
import { orgEraseJob } from '../control/organizations/index.js';
import { orgTransferExecuteJob } from '../control/organizations/index.js';
import { connectorHeartbeatCheckJob } from '../control/connectors/index.js';
import { webhookDeliverJob } from '../control/webhooks/index.js';
import { webhooksDispatchJob } from '../control/webhooks/index.js';
import { webhooksPruneJob } from '../control/webhooks/index.js';
import { verificationCheckJob } from '../control/verification/index.js';

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
