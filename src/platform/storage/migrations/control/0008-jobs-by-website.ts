import type { Migration } from '../../sqlite.js';

/**
 * A website's jobs, newest first (GET /v1/websites/:id/jobs): the kinds that act on one website
 * name it in their payload, so the index is on that JSON field. Without it every page scans and
 * sorts the whole table (figures: docs/decisions.md).
 */
export const migration: Migration = {
  version: 8,
  name: 'jobs by website',
  up: (db) => {
    db.exec(`CREATE INDEX jobs_website ON jobs(json_extract(payload, '$.website_id'), created_at, id)`);
  },
};
