import { newUlid } from '../../../ids/index.js';
import type { Migration } from '../../sqlite.js';

/**
 * An id for each pending invitation, so an admin can list and withdraw one
 * (GET, DELETE /v1/organizations/:id/invitations[/:invitationId]). Invitations already waiting get
 * one made from their creation time; a renewed invitation (the same address invited again) keeps its id.
 */
export const migration: Migration = {
  version: 11,
  name: 'invitation ids',
  up: (db) => {
    db.exec('ALTER TABLE organization_invitations ADD COLUMN id TEXT');
    const rows = db
      .prepare('SELECT organization_id AS organizationId, email, created_at AS createdAt FROM organization_invitations')
      .all() as Array<{ organizationId: string; email: string; createdAt: number }>;
    const setId = db.prepare('UPDATE organization_invitations SET id = ? WHERE organization_id = ? AND email = ?');
    for (const row of rows) setId.run(`inv_${newUlid(row.createdAt)}`, row.organizationId, row.email);
    db.exec('CREATE UNIQUE INDEX organization_invitations_by_id ON organization_invitations(id)');
  },
};
