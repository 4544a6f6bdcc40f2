import { z } from 'zod';
import { pruneAccountRecords } from './prune.js';
import { defineJob } from '../../platform/job-runtime/index.js';

/**
 * Once a day, deletes sessions (with their refresh tokens) and mailed tokens past their expiry
 * (docs/auth.md): they can only ever fail, and a revoked session is kept until then so a reused
 * refresh token still reads as reuse.
 */
export const accountsPruneJob = defineJob({
  kind: 'maintenance.accounts.prune',
  lane: 'maintenance',
  payload: z.object({}),
  schedule: { intervalSeconds: 86_400 },
  handler: async (_payload, { services }) => {
    const pruned = pruneAccountRecords(services.controlDb, services.now());
    services.logger.info(
      { sessions: pruned.sessions, mailTokens: pruned.mailTokens },
      'expired account records pruned',
    );
  },
});
