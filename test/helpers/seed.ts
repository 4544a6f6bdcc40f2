import { randomUUID } from 'node:crypto';
import { createConnector } from '../../src/control/connectors/connectors.js';
import { createApiKey } from '../../src/control/records/api-keys.js';
import { createOrganization } from '../../src/control/records/organizations.js';
import type { Role } from '../../src/control/records/record-types.js';
import { hashPassword } from '../../src/control/records/password-hash.js';
import { createUser } from '../../src/control/records/users.js';
import { createWebsite } from '../../src/control/records/websites.js';
import type { Plan } from '../../src/control/plans/plan-table.js';
import { openControlDb } from '../../src/platform/storage/control.js';
import { dataDirLayout, graphDbPath, readMasterKey } from '../../src/platform/storage/data-dir.js';
import { loadWebsiteInfo } from '../../src/control/records/load-website.js';
import { buildGraphFromItems } from '../../src/ingest/graph/build-from-items.js';
import type { IngestItem } from '../../src/platform/contract/ingest-item.js';
import type { Db } from '../../src/platform/storage/sqlite.js';

/**
 * Records written straight into a data directory from the test's own process, as `nodectl admin`
 * writes them (the same record functions), for tests whose subject is not the admin CLI: a
 * spawned CLI costs about a second of a core per call. The directory may belong to a running
 * daemon (SQLite's locking, as for the CLI beside it); it is created and migrated if new.
 */
export async function withControlDb<T>(
  dataDir: string,
  action: (db: Db, masterKey: Buffer) => T | Promise<T>,
): Promise<T> {
  const layout = dataDirLayout(dataDir);
  const db = openControlDb(layout);
  try {
    return await action(db, readMasterKey(layout));
  } finally {
    db.close();
  }
}

/**
 * The scrypt cost of the passwords the apps of the tests hash (buildTestApp, the accounts
 * fixture): the same scrypt, 32 times cheaper than the product's (PASSWORD_HASH_COST), since the
 * suite hashes a few hundred. test/control/records/password-hash.test.ts checks the product's
 * cost; a spawned daemon always uses it.
 */
export const TEST_PASSWORD_COST = { N: 2 ** 10, r: 8, p: 1 } as const;

const hashes = new Map<string, Promise<string>>();
/**
 * Hashes each password once per test process, for createUser: seeded users sign in as any other
 * (the hash is scrypt's, with its own salt), without a scrypt of about 0.1 s per user.
 */
export function hashOnce(password: string): Promise<string> {
  let hash = hashes.get(password);
  if (!hash) hashes.set(password, (hash = hashPassword(password)));
  return hash;
}

export interface SeededSite {
  userId: string;
  orgId: string;
  websiteId: string;
  domain: string;
}

/** A user, an organization owned by it and a website verified by dns_txt (what `admin user/org/website create --verified dns_txt` make). */
export function seedDataDir(
  dataDir: string,
  options: { domain?: string; plan?: Plan; email?: string } = {},
): Promise<SeededSite> {
  const email = options.email ?? `owner-${randomUUID().slice(0, 8)}@example.com`;
  const domain = options.domain ?? 'example.com';
  return withControlDb(dataDir, async (db) => {
    const user = await createUser(db, { email, password: 'correct-horse-battery' }, Date.now(), hashOnce);
    const org = createOrganization(db, { name: 'Test Org', ownerEmail: email, plan: options.plan ?? 'pro' });
    const website = createWebsite(db, { organizationId: org.id, domain, name: 'Example', verifiedMethod: 'dns_txt' });
    return { userId: user.id, orgId: org.id, websiteId: website.id, domain };
  });
}

/** An API key of the organization (what `admin api-key create` prints once). */
export function seedApiKey(
  dataDir: string,
  organizationId: string,
  role: Exclude<Role, 'organization_owner'> = 'editor',
): Promise<string> {
  return withControlDb(dataDir, (db) => createApiKey(db, { organizationId, role }).key);
}

/** A connector of the website and its token (what `admin connector create` prints once). */
export function seedConnector(
  dataDir: string,
  websiteId: string,
  options: { sourceTypes?: string[]; type?: string } = {},
): Promise<{ id: string; token: string }> {
  return withControlDb(dataDir, (db, masterKey) => {
    const connector = createConnector(db, masterKey, {
      websiteId,
      connectorType: options.type ?? 'test',
      sourceTypes: (options.sourceTypes ?? ['page', 'post']) as never,
    });
    return { id: connector.id, token: connector.token };
  });
}

/**
 * The website's graph, built in this process from `items` into its data directory's graph file (for
 * tests whose subject is publish, not ingest), as received at 2026-03-02T09:00:00Z.
 */
export async function seedGraph(dataDir: string, websiteId: string, items: readonly IngestItem[]): Promise<void> {
  const info = await withControlDb(dataDir, (db) => loadWebsiteInfo(db, websiteId)!);
  buildGraphFromItems(items, info, {
    receivedAt: '2026-03-02T09:00:00Z',
    file: graphDbPath(dataDirLayout(dataDir), websiteId),
  }).close();
}
