import type { Migration } from '../../sqlite.js';
import { migration as initial } from './0001-initial.js';
import { migration as waitlist } from './0002-waitlist.js';
import { migration as idempotencyOwner } from './0003-idempotency-owner.js';
import { migration as accounts } from './0004-accounts.js';
import { migration as organizations } from './0005-organizations.js';
import { migration as eventsWebhooks } from './0006-events-webhooks.js';
import { migration as verification } from './0007-verification.js';
import { migration as jobsByWebsite } from './0008-jobs-by-website.js';
import { migration as factorLockouts } from './0009-factor-lockouts.js';
import { migration as retiredConnectorSecrets } from './0010-retired-connector-secrets.js';
import { migration as invitationIds } from './0011-invitation-ids.js';
import { migration as jobItemErrors } from './0012-job-item-errors.js';
import { migration as websiteLeases } from './0013-website-leases.js';
import { migration as graphHandover } from './0014-graph-handover.js';

/**
 * The schema of control.sqlite, oldest first: one migration per file, `NNNN-name.ts`, whose
 * number is its `version` and whose name is its `name` in kebab-case. openDatabase() applies
 * those newer than the file's user_version, in one transaction.
 *
 * To add one: take the next number, write one new file exporting `migration` (copy the shape of
 * the last one), add its import and one line to the list below, then record a database made at
 * that version with `npm run build && node scripts/make-migration-fixture.mjs control <version>`
 * and commit test/data/control-v<version>.sqlite (test/platform/storage/migrations.app.test.ts checks the
 * numbering and migrates every fixture to the latest version). Two branches that took the same
 * number: the one merged second renumbers its file.
 *
 * Forward-only: a released file is never edited; change the schema again with a new migration.
 *
 * Times: a time column added from 0004 on is INTEGER milliseconds since the Unix epoch, as in
 * jobs, nonces, idempotency, rate limits and publish locks; the ISO-8601 TEXT times of the
 * tenancy tables from 0001 and 0002 stay as released.
 */
export const CONTROL_MIGRATIONS: readonly Migration[] = [
  initial,
  waitlist,
  idempotencyOwner,
  accounts,
  organizations,
  eventsWebhooks,
  verification,
  jobsByWebsite,
  factorLockouts,
  retiredConnectorSecrets,
  invitationIds,
  jobItemErrors,
  websiteLeases,
  graphHandover,
];
