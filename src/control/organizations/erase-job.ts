import { defineJob } from '../../platform/job-runtime/index.js';
import { orgEraseKind } from './job-kinds.js';

/**
 * Erases an organization (GDPR Art. 17): graphs, published files on
 * every target, rows, audit log (docs/organizations.md "Erase").
 */
export const orgEraseJob = defineJob({
  ...orgEraseKind,
  lane: 'maintenance',
  // Loaded when an erase runs: the publish targets (and the AWS SDK with S3) stay out of the worker's start-up.
  handler: async (payload, { services, job }) => {
    const { runOrganizationErasure } = await import('./erase.js');
    await runOrganizationErasure(services, payload.erasure_id, job);
  },
});
