// Seeds a bench's data directory: through `nodectl admin` (the CLI a self-hoster uses, with
// --json) a user, an organization owning one verified website, and optionally a connector of
// the website and API keys of the organization; or the control rows alone, written in process.
import { execFileSync } from 'node:child_process';

/** Runs `node <bin> --data-dir <dataDir> --json <args>` and parses what it prints. */
export function nodectlJson(bin, dataDir, args) {
  return JSON.parse(
    execFileSync('node', [bin, '--data-dir', dataDir, '--json', ...args], {
      encoding: 'utf8',
      env: { ...process.env, NODECTL_LOG_LEVEL: 'warn' },
    }),
  );
}

/**
 * @param {object} o
 * @param {string} o.bin  the launcher to run (a build's bin/nodectl)
 * @param {string} o.dataDir
 * @param {string} o.domain
 * @param {string} o.name  the organization's and the website's name
 * @param {string} [o.email]
 * @param {string} [o.plan]  default business (a million items a month)
 * @param {string[]} [o.sourceTypes]  a connector is created when given
 * @param {string[]} [o.keyRoles]  one API key per role, in this order
 * @returns {{ user: object, org: object, site: object, connector?: object, keys: string[] }}
 */
export function seedBenchSite({
  bin,
  dataDir,
  domain,
  name,
  email = 'bench@example.com',
  plan = 'business',
  sourceTypes,
  keyRoles = [],
}) {
  const run = (...args) => nodectlJson(bin, dataDir, args);
  const user = run('admin', 'user', 'create', '--email', email, '--password', 'bench-password-1');
  const org = run('admin', 'org', 'create', '--name', name, '--owner', user.email, '--plan', plan);
  const site = run(
    'admin',
    'website',
    'create',
    '--org',
    org.id,
    '--domain',
    domain,
    '--name',
    name,
    '--verified',
    'dns_txt',
  );
  const connector =
    sourceTypes === undefined
      ? undefined
      : run(
          'admin',
          'connector',
          'create',
          '--website',
          site.id,
          '--type',
          'bench',
          '--source-types',
          sourceTypes.join(','),
        );
  const keys = keyRoles.map((role) => run('admin', 'api-key', 'create', '--org', org.id, '--role', role).key);
  return { user, org, site, connector, keys };
}

/**
 * Writes one organization (plan pro) and its website, verified, straight into `db` (an open
 * control.sqlite): for benches that drive the compile or the publish in process, with no CLI.
 */
export function seedControlRows(db, websiteId, domain) {
  db.prepare(
    `INSERT INTO organizations (id, name, slug, plan, created_at) VALUES ('org_1', 'Bench', 'bench', 'pro', 'x')`,
  ).run();
  db.prepare(
    `INSERT INTO websites (id, organization_id, domain, name, brand, default_language, created_at) VALUES (?, 'org_1', ?, 'Bench', 'Bench', 'en', 'x')`,
  ).run(websiteId, domain);
  db.prepare(
    `INSERT INTO verifications (website_id, method, state, updated_at) VALUES (?, 'dns_txt', 'verified', 'x')`,
  ).run(websiteId);
}
