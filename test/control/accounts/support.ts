import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveConfig } from '../../../src/platform/config/config.js';
import type { Settings } from '../../../src/platform/config/settings.js';
import { createAccountsContext, type AccountsContext } from '../../../src/control/accounts/context.js';
import type { MailTransport } from '../../../src/control/mail/mail-transport.js';
import { openControlDb } from '../../../src/platform/storage/control.js';
import { dataDirLayout, type DataDirLayout } from '../../../src/platform/storage/data-dir.js';
import type { Db } from '../../../src/platform/storage/sqlite.js';
import { makeTempDir } from '../../helpers/paths.js';
import { TEST_PASSWORD_COST } from '../../helpers/seed.js';

/** 2025-03-01T12:00:00Z: a fixed start, so step and expiry arithmetic in tests is exact. */
export const T0 = Date.UTC(2025, 2, 1, 12, 0, 0);
export const MINUTE = 60_000;

export interface AccountsFixture {
  ctx: AccountsContext;
  db: Db;
  dir: string;
  layout: DataDirLayout;
  settings: Settings;
  /** The clock every account function reads; move it with `advance`. */
  clock: { now: number };
  advance(ms: number): void;
  /** Every .eml the file transport wrote, oldest first, as text. */
  mails(): string[];
  close(): void;
}

/** A real data directory (control.sqlite, keys/, mail/) and an accounts context on it, with a movable clock. */
export async function openAccountsFixture(
  overrides: Partial<Record<keyof Settings, unknown>> = {},
  options: { mailTransport?: MailTransport } = {},
): Promise<AccountsFixture> {
  const temp = makeTempDir('nodectl-accounts-');
  const base = resolveConfig({ env: {}, flags: { dataDir: temp.dir } }).settings;
  const settings = Object.freeze({ ...base, publicBaseUrl: 'https://api.example.test', ...overrides }) as Settings;
  const layout = dataDirLayout(temp.dir);
  const db = openControlDb(layout);
  const clock = { now: T0 };
  const ctx = await createAccountsContext({
    db,
    layout,
    settings,
    now: () => clock.now,
    passwordCost: TEST_PASSWORD_COST,
    mailTransport: options.mailTransport,
  });
  return {
    ctx,
    db,
    dir: temp.dir,
    layout,
    settings,
    clock,
    advance: (ms) => void (clock.now += ms),
    mails: () =>
      readdirSync(layout.mailDir)
        .filter((f) => f.endsWith('.eml'))
        .sort()
        .map((f) => readFileSync(join(layout.mailDir, f), 'utf8')),
    close() {
      ctx.close();
      db.close();
      temp.cleanup();
    },
  };
}

/** The single-use token in a mail the templates wrote (bare-token form, no appBaseUrl). */
export function tokenInMail(eml: string): string {
  const match = /Your token: ([A-Za-z0-9_-]{43})/.exec(eml.replace(/=\r?\n/g, ''));
  if (!match) throw new Error(`no token in mail:\n${eml}`);
  return match[1]!;
}

/** A loopback HTTP server answering GET with a JSON body (a JWKS); counts requests. */
export async function serveJson(
  body: () => unknown,
): Promise<{ url: string; hits: () => number; close(): Promise<void> }> {
  let hits = 0;
  const server: Server = createServer((req, res) => {
    hits++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/jwks.json`,
    hits: () => hits,
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}
