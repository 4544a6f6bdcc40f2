import { execa } from 'execa';
import { NODECTL_BIN } from './paths.js';

export interface CliRun {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (for --json runs). */
  json<T = any>(): T;
}

/** Runs the real built binary, like a user would. Never throws on a non-zero exit. */
export async function runNodectl(
  args: string[],
  options: { dataDir?: string; env?: Record<string, string>; input?: string; cwd?: string; timeoutMs?: number } = {},
): Promise<CliRun> {
  const fullArgs = options.dataDir ? ['--data-dir', options.dataDir, ...args] : args;
  const result = await execa('node', [NODECTL_BIN, ...fullArgs], {
    reject: false,
    env: { NODECTL_LOG_LEVEL: 'warn', ...options.env },
    input: options.input,
    cwd: options.cwd,
    timeout: options.timeoutMs ?? 60_000,
  });
  return {
    exitCode: result.exitCode ?? -1,
    stdout: String(result.stdout),
    stderr: String(result.stderr),
    json() {
      return JSON.parse(String(result.stdout));
    },
  };
}

/** Creates a user, an organization and a verified website; returns their ids. */
export async function bootstrapWebsite(
  dataDir: string,
  options: { domain?: string; plan?: 'free' | 'pro' | 'business'; email?: string } = {},
): Promise<{ userId: string; orgId: string; websiteId: string; domain: string }> {
  const email = options.email ?? `owner-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const domain = options.domain ?? 'example.com';
  const user = await runNodectl(
    ['--json', 'admin', 'user', 'create', '--email', email, '--password', 'correct-horse-battery'],
    { dataDir },
  );
  if (user.exitCode !== 0) throw new Error(user.stderr);
  const org = await runNodectl(
    ['--json', 'admin', 'org', 'create', '--name', 'Test Org', '--owner', email, '--plan', options.plan ?? 'pro'],
    { dataDir },
  );
  if (org.exitCode !== 0) throw new Error(org.stderr);
  const site = await runNodectl(
    [
      '--json',
      'admin',
      'website',
      'create',
      '--org',
      org.json().id,
      '--domain',
      domain,
      '--name',
      'Example',
      '--verified',
      'dns_txt',
    ],
    { dataDir },
  );
  if (site.exitCode !== 0) throw new Error(site.stderr);
  return { userId: user.json().id, orgId: org.json().id, websiteId: site.json().id, domain };
}
