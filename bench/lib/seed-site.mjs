// Seeds a bench's data directory through `nodectl admin` (the CLI a self-hoster uses, with
// --json): a user, an organization owning one verified website, and optionally a connector of
// the website and API keys of the organization.
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
