import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { AppServices } from '../../platform/app/index.js';
import { AppError } from '../../platform/errors/index.js';
import { newUlid } from '../../platform/ids/index.js';
import type { Job } from '../../platform/jobs/index.js';
import type { Db } from '../../platform/storage/index.js';
import {
  appendAudit,
  type AuditActor,
  type OrganizationRecord,
  expireTransfers,
  openTransfer,
} from '../records/index.js';
import { deleteOrganizationRows, deleteOrganizationSharedState, readOrganizationIds } from './erase-rows.js';
import { orgEraseKind } from './job-kinds.js';

/** 409 privacy.erasure_in_progress while an erasure of the organization runs. */
function assertNotErasing(db: Db, organizationId: string): void {
  if (db.prepare('SELECT 1 FROM organization_erasures WHERE organization_id = ?').get(organizationId)) {
    throw new AppError(
      'privacy.erasure_in_progress',
      'An erasure of this organization is already running; it reads as not found once it is done.',
    );
  }
}

/**
 * 403 privacy.erasure_forbidden while a transfer waits for its
 * recipient or its job: the recipient was promised the organization.
 */
function assertNoOpenTransfer(db: Db, organizationId: string, now: number): void {
  expireTransfers(db, organizationId, now);
  if (openTransfer(db, organizationId, now)) {
    throw new AppError(
      'privacy.erasure_forbidden',
      'A transfer of this organization is pending: cancel it (POST /v1/organizations/:id/transfer/cancel) before erasing or deleting the organization.',
    );
  }
}

/** Whether `confirm` names the organization: its slug or its name, exactly. */
export function confirmsOrganization(
  organization: Pick<OrganizationRecord, 'slug' | 'name'>,
  confirm: string,
): boolean {
  const typed = confirm.trim();
  return typed === organization.slug || typed === organization.name.trim();
}

/**
 * POST /v1/organizations/:id/erase (docs/organizations.md "Erase"): records the erasure and
 * enqueues org.erase, in one transaction; answers the job. The typed confirmation must name the
 * organization (422 validation.failed otherwise).
 */
export function requestErasure(
  services: Pick<AppServices, 'controlDb' | 'jobs' | 'now'>,
  input: { organization: OrganizationRecord; confirm: string; actor: AuditActor; requestId: string },
): Job {
  const db = services.controlDb;
  const now = services.now();
  const { organization } = input;
  return db
    .transaction(() => {
      assertNotErasing(db, organization.id);
      assertNoOpenTransfer(db, organization.id, now);
      if (!confirmsOrganization(organization, input.confirm)) {
        throw new AppError(
          'validation.failed',
          `The confirmation does not name this organization: type its slug "${organization.slug}" or its name.`,
          {
            details: {
              fields: [{ path: 'confirm', message: `must be "${organization.slug}" or the organization's name` }],
            },
          },
        );
      }
      const erasureId = `era_${newUlid(now)}`;
      db.prepare(
        'INSERT INTO organization_erasures (organization_id, id, requested_by, requested_at) VALUES (?, ?, ?, ?)',
      ).run(organization.id, erasureId, 'id' in input.actor ? input.actor.id : null, now);
      appendAudit(
        db,
        {
          organizationId: organization.id,
          actor: input.actor,
          action: 'organization.erase_requested',
          target: organization.id,
          requestId: input.requestId,
          details: { erasure_id: erasureId },
        },
        now,
      );
      return services.jobs.enqueue(orgEraseKind, { erasure_id: erasureId });
    })
    .immediate();
}

/**
 * DELETE /v1/organizations/:id: the erase's cleanup, synchronous, for an organization without
 * websites (409 organization.not_empty otherwise: delete them, or erase the organization, whose
 * job removes their graphs and published files). Refused during an erasure or a pending transfer.
 */
export function deleteEmptyOrganization(
  services: Pick<AppServices, 'controlDb' | 'now'>,
  organizationId: string,
): void {
  const db = services.controlDb;
  deleteLeavingNoTrace(db, () => {
    assertNotErasing(db, organizationId);
    assertNoOpenTransfer(db, organizationId, services.now());
    const ids = readOrganizationIds(db, organizationId);
    if (ids.websiteIds.length > 0) {
      throw new AppError(
        'organization.not_empty',
        `The organization still has ${ids.websiteIds.length} website(s): delete them first, or erase the organization (POST /v1/organizations/:id/erase).`,
      );
    }
    deleteOrganizationRows(db, ids, null);
  });
}

/**
 * Runs the deleting transaction with secure_delete on, so SQLite overwrites the deleted rows with
 * zeros instead of leaving them in free space, then checkpoints the WAL into the file and empties
 * it (the WAL still held the rows). With another connection reading at that moment the checkpoint
 * is partial and the WAL is emptied by a later one.
 */
function deleteLeavingNoTrace(db: Db, work: () => void): void {
  const restore = secureDeleteOn(db);
  try {
    db.transaction(work).immediate();
  } finally {
    restore();
  }
  db.pragma('wal_checkpoint(TRUNCATE)');
}

/**
 * Turns the connection's secure_delete on (deleted and moved
 * rows are overwritten with zeros); returns what restores it.
 */
function secureDeleteOn(db: Db): () => void {
  const before = db.pragma('secure_delete', { simple: true }) as number;
  db.pragma('secure_delete = ON');
  return () => void db.pragma(`secure_delete = ${before}`);
}

/** Closes the pool's connections and deletes the website's graph and inbox files with their WAL and shared-memory files. */
export function deleteGraphFiles(services: Pick<AppServices, 'graphs' | 'layout'>, websiteId: string): void {
  services.graphs.release(websiteId);
  let names: string[];
  try {
    names = readdirSync(services.layout.graphsDir);
  } catch {
    return;
  }
  for (const name of names)
    if (
      [`${websiteId}.sqlite`, `${websiteId}.inbox.sqlite`].some((file) => name === file || name.startsWith(`${file}-`))
    )
      rmSync(join(services.layout.graphsDir, name), { force: true });
}

type ErasureServices = Pick<AppServices, 'controlDb' | 'graphs' | 'layout' | 'logger' | 'nodes' | 'now' | 'postgres'>;

/**
 * The org.erase job (docs/organizations.md "Erase"). Safe to run again after a failure at any
 * point: (1) the organization's connectors and API keys stop working; (2) each website's published
 * files go from every target and its graph file is deleted; (3) one transaction deletes every row
 * of the organization (erase-rows.ts), the audit log and the erasure itself included, overwriting
 * the deleted rows (secure_delete) and emptying the WAL. A website
 * created meanwhile is found by (2)'s loop, or makes (3) throw so the job runs again. User
 * accounts stay. An erasure already done is a no-op.
 */
export async function runOrganizationErasure(
  services: ErasureServices,
  erasureId: string,
  job: Pick<Job, 'id'>,
): Promise<void> {
  const db = services.controlDb;
  const erasure = db
    .prepare('SELECT organization_id AS organizationId FROM organization_erasures WHERE id = ?')
    .get(erasureId) as { organizationId: string } | undefined;
  if (!erasure) return;
  const { organizationId } = erasure;
  const now = services.now();
  // On for the whole job: the publish locks it takes and releases leave no copy of a website id either.
  const restore = secureDeleteOn(db);
  try {
    await eraseOrganizationData(services, organizationId, erasureId, job, now);
  } finally {
    restore();
  }
}

async function eraseOrganizationData(
  services: ErasureServices,
  organizationId: string,
  erasureId: string,
  job: Pick<Job, 'id'>,
  now: number,
): Promise<void> {
  const db = services.controlDb;
  db.transaction(() => {
    db.prepare(
      `UPDATE connectors SET status = 'revoked', updated_at = ? WHERE website_id IN (SELECT id FROM websites WHERE organization_id = ?)`,
    ).run(new Date(now).toISOString(), organizationId);
    db.prepare('UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE organization_id = ?').run(
      new Date(now).toISOString(),
      organizationId,
    );
  }).immediate();

  const erased = new Set<string>();
  for (;;) {
    const websites = (
      db.prepare('SELECT id, domain FROM websites WHERE organization_id = ? ORDER BY id').all(organizationId) as Array<{
        id: string;
        domain: string;
      }>
    ).filter((w) => !erased.has(w.id));
    if (websites.length === 0) break;
    for (const website of websites) {
      await services.nodes.eraseWebsiteNode({ websiteId: website.id, domain: website.domain });
      deleteGraphFiles(services, website.id);
      erased.add(website.id);
    }
  }

  // The shared request state first: its rows are found by the ids control.sqlite still holds.
  if (services.postgres)
    await deleteOrganizationSharedState(services.postgres, readOrganizationIds(db, organizationId));
  deleteLeavingNoTrace(db, () => {
    const ids = readOrganizationIds(db, organizationId);
    const late = ids.websiteIds.filter((id) => !erased.has(id));
    if (late.length > 0)
      throw new Error(
        `${late.length} website(s) were added to the organization during its erasure; the erase job runs again`,
      );
    deleteOrganizationRows(db, ids, job.id);
  });
  // A job of a website that was running during the erase may have reopened its graph: delete again.
  for (const websiteId of erased) deleteGraphFiles(services, websiteId);
  services.logger.info({ erasureId, websites: erased.size }, 'organization erased');
}
