import type { Migration } from '../../sqlite.js';

/**
 * The items a job refused (content.ingest: extraction or merge failed), kept on the job's row so
 * GET /v1/websites/:id/jobs/:jobId can list them: JSON {"count": n, "listed": [...]}, the list
 * bounded (JobQueue.addItemErrors), NULL while none. Pruning the job removes them with it.
 */
export const migration: Migration = {
  version: 12,
  name: 'job item errors',
  up: (db) => {
    db.exec(`ALTER TABLE jobs ADD COLUMN item_errors TEXT`);
  },
};
