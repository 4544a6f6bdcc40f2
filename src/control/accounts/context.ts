import { createRemoteJWKSet, type JWTVerifyGetKey } from 'jose';
import { publicBaseUrl, type Settings } from '../../platform/config/index.js';
import { readMasterKey, type DataDirLayout, type Db } from '../../platform/storage/index.js';
import { ACCESS_TOKEN_LIFETIME_SECONDS } from './access-token-lifetime.js';
import type { AccountMail } from './account-mail-kinds.js';
import { primeDummyPasswordHash } from './account-users.js';
import { PASSWORD_HASH_COST, type ScryptCost } from '../records/index.js';
import { MailOutbox, type AccountsLogger, createMailTransport, type MailTransport } from '../mail/index.js';
import { ensureSigningKey, SigningKeyRing, type AccessTokenAlgorithm } from './signing-keys.js';

export interface GoogleSignInConfig {
  /** Audience ID tokens must carry; Google sign-in is off without it. */
  clientId: string | undefined;
  issuers: string[];
  /** Google's signing keys, fetched from the JWKS URL on first use and cached (jose). */
  keys: JWTVerifyGetKey;
}

/**
 * What every account function needs, built once per process: the control database, the master
 * key, the signing key ring, token and session settings, Google sign-in, the mail outbox and the
 * clock. Pure of HTTP: the route layer passes it and the caller's input.
 */
export interface AccountsContext {
  readonly db: Db;
  readonly masterKey: Buffer;
  readonly keys: SigningKeyRing;
  readonly tokens: { readonly issuer: string; readonly audience: string; readonly algorithm: AccessTokenAlgorithm };
  readonly sessionLifetimeMs: number;
  readonly google: GoogleSignInConfig;
  readonly mail: MailOutbox;
  readonly appBaseUrl: string | undefined;
  readonly now: () => number;
  /** What passwords are hashed with, and the dummy hash an unknown account is checked against. */
  readonly passwordCost: ScryptCost;
  readonly logger: AccountsLogger;
  /**
   * Hands an account mail to whatever sends it after the request (the daemon: the accounts.mail
   * job); undefined: the in-memory outbox sends it once the caller has answered (./account-mail.ts).
   */
  readonly deferMail: ((mail: AccountMail) => void) | undefined;
  /** Closes the mail transport (the database belongs to the caller). */
  close(): void;
}

export interface CreateAccountsContextOptions {
  db: Db;
  layout: DataDirLayout;
  settings: Settings;
  /**
   * The port the daemon listens on, for the default issuer (publicBaseUrl) when port 0 was asked; a
   * function is read at each use, since the app is built before it listens.
   */
  listenPort?: number | (() => number | undefined);
  /** Default: the transport the settings name (mailTransport). */
  mailTransport?: MailTransport;
  now?: () => number;
  /** Default PASSWORD_HASH_COST. */
  passwordCost?: ScryptCost;
  logger?: AccountsLogger;
  /** Default: none, the in-memory outbox (see AccountsContext.deferMail). */
  deferMail?: (mail: AccountMail) => void;
}

const silentLogger: AccountsLogger = { info() {}, warn() {} };
const DAY_MS = 24 * 60 * 60 * 1000;

export async function createAccountsContext(options: CreateAccountsContextOptions): Promise<AccountsContext> {
  const { settings, layout } = options;
  const now = options.now ?? Date.now;
  const logger = options.logger ?? silentLogger;
  const algorithm = settings.accessTokenAlgorithm;
  // A fresh data directory gets its first key before any request needs one.
  await ensureSigningKey(layout, algorithm, now());
  const passwordCost = options.passwordCost ?? PASSWORD_HASH_COST;
  await primeDummyPasswordHash(passwordCost);
  const keys = new SigningKeyRing(layout, { algorithm, tokenLifetimeMs: ACCESS_TOKEN_LIFETIME_SECONDS * 1000, now });
  const listenPort = options.listenPort;
  const issuer = () =>
    settings.authIssuer ?? publicBaseUrl(settings, typeof listenPort === 'function' ? listenPort() : listenPort);
  const mail = new MailOutbox(options.mailTransport ?? (await createMailTransport(settings, layout)), {
    from: settings.mailFrom,
    logger,
  });
  return {
    db: options.db,
    masterKey: readMasterKey(layout),
    keys,
    tokens: {
      get issuer() {
        return issuer();
      },
      audience: settings.authAudience,
      algorithm,
    },
    sessionLifetimeMs: settings.sessionLifetimeDays * DAY_MS,
    google: {
      clientId: settings.googleClientId,
      issuers: [...settings.googleIssuers],
      keys: createRemoteJWKSet(new URL(settings.googleJwksUrl), {
        timeoutDuration: 5000,
        cooldownDuration: 30_000,
        cacheMaxAge: 10 * 60_000,
      }),
    },
    mail,
    appBaseUrl: settings.appBaseUrl,
    now,
    passwordCost,
    logger,
    deferMail: options.deferMail,
    close: () => mail.close(),
  };
}
