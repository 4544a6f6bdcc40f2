import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TOTP, Secret } from 'otpauth';
import type { SettingName } from '../../../src/platform/config/settings.js';
import {
  buildTestApp,
  fakeClock,
  injectJson,
  type FakeClock,
  type InjectAnswer,
  type TestApp,
} from '../../helpers/app.js';
import { tokenInMail } from './support.js';

export const PASSWORD = 'correct-horse-battery';

/** The daemon's app over a fresh data directory on a fake clock, with the real accounts routes and user resolver. */
export interface AuthApp extends TestApp {
  clock: FakeClock;
  /** POSTs JSON (or no body) and parses the answer. */
  post(url: string, body?: unknown, headers?: Record<string, string>, remoteAddress?: string): Promise<InjectAnswer>;
  get(url: string, headers?: Record<string, string>): Promise<InjectAnswer>;
  /** Runs the due jobs (accounts.mail sends the account mails), then waits for the outbox; every .eml the file transport wrote. */
  mails(): Promise<string[]>;
  /** Runs every due job once; resolves how many ran. */
  runJobs(): Promise<number>;
}

export async function openAuthApp(settings: Partial<Record<SettingName, unknown>> = {}): Promise<AuthApp> {
  const clock = fakeClock();
  const t = await buildTestApp({ clock, settings });
  const mailDir = join(t.dataDir, 'mail');
  const runJobs = async () => {
    const { JOBS } = await import('../../../src/daemon/job-definitions.js');
    const { JobWorker, laneConcurrency } = await import('../../../src/platform/job-runtime/job-worker.js');
    return new JobWorker(t.services.jobs, JOBS, t.services, {
      lanes: laneConcurrency(t.services.config.settings),
      pollMs: 1000,
    }).drain();
  };
  return {
    ...t,
    clock,
    post: (url, body, headers = {}, remoteAddress) =>
      injectJson(t.app, {
        method: 'POST',
        url,
        ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
        headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        ...(remoteAddress ? { remoteAddress } : {}),
      }),
    get: (url, headers = {}) => injectJson(t.app, { method: 'GET', url, headers }),
    runJobs,
    async mails() {
      // Account mails leave through the accounts.mail job, some through the outbox in the background.
      await runJobs();
      const { accountsContextOf } = await import('../../../src/control/accounts/http-context.js');
      await (await accountsContextOf(t.services)).mail.idle();
      let names: string[];
      try {
        names = readdirSync(mailDir)
          .filter((f) => f.endsWith('.eml'))
          .sort();
      } catch {
        return [];
      }
      return names.map((f) => readFileSync(join(mailDir, f), 'utf8'));
    },
  };
}

/**
 * The token of the one mail to `email` with `subject` (file names are ULIDs of one fake-clock
 * millisecond, so they do not sort by sending order: select, do not take the last).
 */
export async function mailedToken(
  a: AuthApp,
  email: string,
  subject: 'Confirm your email address' | 'Reset your password',
): Promise<string> {
  const matching = (await a.mails()).filter(
    (m) => m.includes(`To: ${email.toLowerCase()}\r\n`) && m.includes(`Subject: ${subject}\r\n`),
  );
  if (matching.length !== 1) throw new Error(`expected one "${subject}" mail to ${email}, found ${matching.length}`);
  return tokenInMail(matching[0]!);
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** The Set-Cookie header of an answer, as one string per cookie. */
export function setCookies(answer: InjectAnswer): string[] {
  const header = answer.headers['set-cookie'];
  return header === undefined ? [] : Array.isArray(header) ? header : [String(header)];
}

/** The svc_refresh cookie an answer sets: its value and attributes (names lower-cased). */
export function refreshCookieOf(
  answer: InjectAnswer,
): { value: string; attributes: Record<string, string | true> } | undefined {
  const cookie = setCookies(answer).find((c) => c.startsWith('svc_refresh='));
  if (!cookie) return undefined;
  const [pair, ...rest] = cookie.split(';').map((p) => p.trim());
  const attributes: Record<string, string | true> = {};
  for (const part of rest) {
    const eq = part.indexOf('=');
    if (eq < 0) attributes[part.toLowerCase()] = true;
    else attributes[part.slice(0, eq).toLowerCase()] = part.slice(eq + 1);
  }
  return { value: pair!.slice('svc_refresh='.length), attributes };
}

/** The current TOTP code of a base32 secret at `ms` (an authenticator app's view). */
export function totpCode(secret: string, ms: number): string {
  return new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) }).generate({
    timestamp: ms,
  });
}

export interface SignedInUser {
  userId: string;
  email: string;
  accessToken: string;
  refreshToken: string;
}

/** Registers through the route, verifies the address with the mailed token, and logs in. */
export async function registerAndLogin(
  a: AuthApp,
  email: string,
  options: { orgName?: string; remoteAddress?: string } = {},
): Promise<SignedInUser> {
  const registered = await a.post(
    '/v1/auth/register',
    { email, password: PASSWORD, orgName: options.orgName ?? 'Analytical Engines' },
    {},
    options.remoteAddress,
  );
  if (registered.status !== 201) throw new Error(`register: ${registered.body}`);
  const verified = await a.post('/v1/auth/verify-email', {
    token: await mailedToken(a, email, 'Confirm your email address'),
  });
  if (verified.status !== 200) throw new Error(`verify-email: ${verified.body}`);
  const login = await a.post('/v1/auth/login', { email, password: PASSWORD }, {}, options.remoteAddress);
  if (login.status !== 200) throw new Error(`login: ${login.body}`);
  return {
    userId: login.json.data.user.id,
    email: email.toLowerCase(),
    accessToken: login.json.data.accessToken,
    refreshToken: login.json.data.refreshToken,
  };
}

/** The error code and status of an answer, as one string ("401 auth.unauthenticated"). */
export const failure = (answer: InjectAnswer) => `${answer.status} ${answer.json?.error?.code}`;
