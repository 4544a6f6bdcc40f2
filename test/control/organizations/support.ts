import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AppServices } from '../../../src/platform/app/services.js';
import type { PlatformRole, UserPrincipal } from '../../../src/control/access/principal.js';
import { newUlid } from '../../../src/platform/ids/ulid.js';
import { memberRole } from '../../../src/control/records/member-rows.js';
import {
  buildTestApp,
  fakeClock,
  injectJson,
  type BuildTestAppOptions,
  type FakeClock,
  type InjectAnswer,
  type TestApp,
} from '../../helpers/app.js';

/**
 * An in-process app whose user sessions are bearer tokens `session:<userId>`, resolved against
 * the real users and members tables (as the accounts feature's verifier does with access
 * tokens), so routes see real memberships that change as the tests change them.
 */
export interface OrgTestApp extends TestApp {
  clock: FakeClock;
  /** Creates a user row (no password: these tests never sign in with one). */
  user(email: string, options?: { verified?: boolean; platformRole?: PlatformRole }): string;
  /** Injects a request as a user (a user id), an API key (nk_live_...), or anonymously (undefined). */
  call(
    as: string | undefined,
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    body?: unknown,
  ): Promise<InjectAnswer>;
  /** Runs every due job until none is due; returns how many ran. */
  runJobs(): Promise<number>;
}

export async function buildOrgApp(options: BuildTestAppOptions = {}): Promise<OrgTestApp> {
  const clock = options.clock ?? fakeClock();
  let services: AppServices | undefined;
  const resolveUserPrincipal = (token: string): UserPrincipal | undefined => {
    if (!token.startsWith('session:') || !services) return undefined;
    const userId = token.slice('session:'.length);
    const row = services.controlDb
      .prepare('SELECT platform_role AS platformRole FROM users WHERE id = ?')
      .get(userId) as { platformRole: PlatformRole | null } | undefined;
    if (!row) return undefined;
    const db = services.controlDb;
    return {
      kind: 'user',
      userId,
      sessionId: `ses_${userId}`,
      ...(row.platformRole ? { platformRole: row.platformRole } : {}),
      memberships: (organizationId) => memberRole(db, organizationId, userId),
    };
  };
  const t = await buildTestApp({ ...options, clock, principalResolvers: { resolveUserPrincipal } });
  services = t.services;
  const { JOBS } = await import('../../../src/daemon/job-definitions.js');
  const { JobWorker, laneConcurrency } = await import('../../../src/platform/job-runtime/job-worker.js');
  const worker = new JobWorker(t.services.jobs, JOBS, t.services, {
    lanes: laneConcurrency(t.services.config.settings),
    pollMs: 10,
  });
  return {
    ...t,
    clock,
    user(email, o = {}) {
      const id = `usr_${newUlid(clock.now())}`;
      const at = new Date(clock.now()).toISOString();
      t.services.controlDb
        .prepare('INSERT INTO users (id, email, email_verified_at, platform_role, created_at) VALUES (?, ?, ?, ?, ?)')
        .run(id, email, o.verified === false ? null : at, o.platformRole ?? null, at);
      return id;
    },
    call(as, method, url, body) {
      const headers: Record<string, string> = {};
      if (as?.startsWith('nk_live_')) headers['x-api-key'] = as;
      else if (as) headers.authorization = `Bearer session:${as}`;
      if (body !== undefined) headers['content-type'] = 'application/json';
      return injectJson(t.app, {
        method,
        url,
        headers,
        ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
      });
    },
    runJobs: () => worker.drain(),
    async close() {
      await worker.stop();
      await t.close();
    },
  };
}

/** `status code` of an answer, for compact assertions. */
export function outcome(res: InjectAnswer): string {
  return res.status < 400 ? String(res.status) : `${res.status} ${res.json?.error?.code}`;
}

export interface SentMail {
  to: string;
  subject: string;
  text: string;
  /** The token of a mail without appBaseUrl ("Your token: ..."). */
  token: string | undefined;
}

/** Every .eml the file transport wrote under <data-dir>/mail, oldest first (file names are ULIDs). */
export function sentMails(dataDir: string): SentMail[] {
  const dir = join(dataDir, 'mail');
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((n) => n.endsWith('.eml'))
      .sort();
  } catch {
    return [];
  }
  return names.map((name) => {
    const raw = readFileSync(join(dir, name), 'utf8');
    const [head = '', ...body] = raw.split('\r\n\r\n');
    const header = (field: string) => new RegExp(`^${field}: (.*)$`, 'mi').exec(head)?.[1]?.trim() ?? '';
    const text = body.join('\r\n\r\n').replace(/=\r\n/g, '');
    return { to: header('To'), subject: header('Subject'), text, token: /Your token: (\S+)/.exec(text)?.[1] };
  });
}
