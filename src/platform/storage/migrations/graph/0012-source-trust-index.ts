import type { Migration } from '../../sqlite.js';

/**
 * An index on sources' trust. Every content.ingest batch first sets the trust of the sources it
 * has not refreshed to the website's current one (refreshSourceTrust, src/ingest/graph): with no
 * index that was a scan of every source, a cost per batch growing with the website (issue 40).
 * With it, the update reads the two ranges of other trusts, empty unless the verification changed.
 */
export const migration: Migration = {
  version: 12,
  name: 'source trust index',
  up: (db) => {
    db.exec(`CREATE INDEX sources_by_trust ON sources(trust);`);
  },
};
