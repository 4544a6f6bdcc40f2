import { existsSync } from 'node:fs';
import { z } from 'zod';
import { graphDbPath } from '../../platform/storage/index.js';
import { verificationDeps } from './deps.js';
import { runVerificationMaintenance } from './maintenance.js';
import { createOwnershipProbes } from './ownership-probes.js';
import { defineJob } from '../../platform/job-runtime/index.js';

/**
 * verification.check, hourly (docs/verification.md "Re-checks"): fails pending challenges 7 days
 * old, re-reads the proof of every open pending challenge and of every verified or in-grace
 * domain not checked for a day, and revokes lapsed grace windows. A website whose own
 * domain's trust changed gets its graph's source trust refreshed and, when it has a graph, a
 * republish (node.republish publishes only over a live version), so the live trust.json and
 * sources do not go on claiming a verification that lapsed.
 */
export const verificationCheckJob = defineJob({
  kind: 'verification.check',
  lane: 'maintenance',
  payload: z.object({}),
  schedule: { intervalSeconds: 3600 },
  handler: async (_payload, { services, signal }) => {
    const report = await runVerificationMaintenance(
      verificationDeps(services),
      createOwnershipProbes(services.config.settings),
      {
        signal,
        onError: (error, domain) =>
          services.logger.warn(
            { err: error, domain },
            'verification.check: a re-check could not run; the next run tries again',
          ),
      },
    );
    for (const websiteId of report.changedWebsites) {
      if (existsSync(graphDbPath(services.layout, websiteId)))
        services.nodes.requestRepublish({ website_id: websiteId, removed: [] });
    }
    if (report.rechecked + report.pendingRechecked + report.expired + report.lapsed + report.errors > 0)
      services.logger.info({ ...report }, 'verification.check');
  },
});
