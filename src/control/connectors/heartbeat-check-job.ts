import { z } from 'zod';
import { flagStaleConnectors } from './flag-stale.js';
import { defineJob } from '../../platform/job-runtime/index.js';

/**
 * Every 5 minutes, flags connectors with no heartbeat for 15 minutes as stale and emits
 * connector.stale once per silence (docs/contract.md#heartbeat, docs/webhooks.md).
 */
export const connectorHeartbeatCheckJob = defineJob({
  kind: 'connector.heartbeat.check',
  lane: 'maintenance',
  payload: z.object({}),
  schedule: { intervalSeconds: 300 },
  handler: async (_payload, { services }) => {
    const flagged = flagStaleConnectors(services.controlDb, services.now());
    if (flagged.length > 0)
      services.logger.info({ connectors: flagged }, 'connectors flagged stale: no heartbeat for 15 minutes');
  },
});
