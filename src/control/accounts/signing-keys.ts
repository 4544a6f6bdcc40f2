import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { calculateJwkThumbprint, exportJWK, type JWK } from 'jose';
import { z } from 'zod';
import type { DataDirLayout } from '../../platform/storage/data-dir.js';
import { writeFileAtomic } from '../../platform/storage/write-file-atomic.js';

export const ACCESS_TOKEN_ALGORITHMS = ['EdDSA', 'RS256'] as const;
export type AccessTokenAlgorithm = (typeof ACCESS_TOKEN_ALGORITHMS)[number];

/** One key of the ring as stored: keys/signing/<kid>.json, mode 0600. */
const StoredKeySchema = z.strictObject({
  kid: z.string().regex(/^[A-Za-z0-9_-]{43}$/),
  alg: z.enum(ACCESS_TOKEN_ALGORITHMS),
  createdAt: z.number().int().nonnegative(),
  retiredAt: z.number().int().nonnegative().nullable(),
  privateKey: z.string().startsWith('-----BEGIN PRIVATE KEY-----'),
});
type StoredKey = z.infer<typeof StoredKeySchema>;

/** What `nodectl admin keys list` shows and jwks() is made of; never the private key. */
export interface SigningKeyInfo {
  kid: string;
  alg: AccessTokenAlgorithm;
  createdAt: number;
  retiredAt: number | null;
  /** active: may sign; retired: verifies tokens it signed until they expire; expired: verifies nothing. */
  state: 'active' | 'retired' | 'expired';
}

export interface SigningKey {
  kid: string;
  alg: AccessTokenAlgorithm;
  createdAt: number;
  retiredAt: number | null;
  privateKey: KeyObject;
  publicKey: KeyObject;
  publicJwk: JWK;
}

export interface SigningKeyRingOptions {
  /** The one algorithm tokens are signed and verified with (setting accessTokenAlgorithm). */
  algorithm: AccessTokenAlgorithm;
  /** Access token lifetime: a retired key verifies for this long after its retirement. */
  tokenLifetimeMs: number;
  now: () => number;
}

export function signingKeysDir(layout: DataDirLayout): string {
  return join(layout.keysDir, 'signing');
}

/** A ring re-reads its folder when it changed, and at least this often (another process may rotate). */
const RELOAD_EVERY_MS = 30_000;
const FORCED_RELOAD_MIN_MS = 1000;

function newKeyPair(alg: AccessTokenAlgorithm): KeyObject {
  return alg === 'EdDSA'
    ? generateKeyPairSync('ed25519').privateKey
    : generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
}

function stateOf(key: { retiredAt: number | null }, now: number, lifetimeMs: number): SigningKeyInfo['state'] {
  if (key.retiredAt === null) return 'active';
  // Every token a key signed was issued at or before its retirement, so none is valid after this.
  return now < key.retiredAt + lifetimeMs ? 'retired' : 'expired';
}

function writeStoredKey(dir: string, key: StoredKey): void {
  writeFileAtomic(join(dir, `${key.kid}.json`), JSON.stringify(key, null, 2) + '\n', { mode: 0o600 });
}

/** Reads every key file; a damaged one stops the daemon with its name rather than being skipped. */
function readStoredKeys(dir: string): StoredKey[] {
  if (!existsSync(dir)) return [];
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.json') && !name.startsWith('.'))
    .sort();
  return files.map((name) => {
    const file = join(dir, name);
    let parsed: z.ZodSafeParseResult<StoredKey>;
    try {
      parsed = StoredKeySchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    } catch (error) {
      throw new Error(
        `Cannot read the signing key ${file}: ${(error as Error).message}. Restore it from a backup or delete it (tokens it signed stop verifying).`,
      );
    }
    if (!parsed.success || `${parsed.data.kid}.json` !== name)
      throw new Error(
        `The signing key ${file} is damaged (${parsed.success ? 'kid differs from the file name' : parsed.error.issues[0]?.message}). Restore it from a backup or delete it.`,
      );
    return parsed.data;
  });
}

async function storedKeyFrom(privateKey: KeyObject, alg: AccessTokenAlgorithm, createdAt: number): Promise<StoredKey> {
  const kid = await calculateJwkThumbprint(await exportJWK(createPublicKey(privateKey)));
  return {
    kid,
    alg,
    createdAt,
    retiredAt: null,
    privateKey: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
  };
}

/**
 * Gives the ring a key that may sign with `algorithm` if it has none: the Ed25519 pair the data
 * directory made on first start (keys/jwt-ed25519.pem) for EdDSA, else a new key.
 */
export async function ensureSigningKey(
  layout: DataDirLayout,
  algorithm: AccessTokenAlgorithm,
  now: number,
): Promise<void> {
  const dir = signingKeysDir(layout);
  if (readStoredKeys(dir).some((key) => key.alg === algorithm && key.retiredAt === null)) return;
  const adopt =
    algorithm === 'EdDSA' &&
    existsSync(layout.jwtPrivateKeyFile) &&
    !readStoredKeys(dir).some((key) => key.alg === 'EdDSA');
  const privateKey = adopt ? createPrivateKey(readFileSync(layout.jwtPrivateKeyFile, 'utf8')) : newKeyPair(algorithm);
  writeStoredKey(dir, await storedKeyFrom(privateKey, algorithm, now));
}

export interface RotationResult {
  kid: string;
  alg: AccessTokenAlgorithm;
  /** Keys that stopped signing now; they verify until retiredAt + the token lifetime. */
  retired: string[];
  /** Keys whose tokens have all expired: their files are deleted. */
  removed: string[];
}

/**
 * Makes a new signing key and retires every other active one (`nodectl admin keys rotate`). The new
 * key is written first, so a process reading the ring in between sees two active keys and signs
 * with the newer. Files of keys that verify nothing any more are deleted.
 */
export async function rotateSigningKey(
  layout: DataDirLayout,
  options: Omit<SigningKeyRingOptions, 'now'> & { now: number },
): Promise<RotationResult> {
  const dir = signingKeysDir(layout);
  const next = await storedKeyFrom(newKeyPair(options.algorithm), options.algorithm, options.now);
  writeStoredKey(dir, next);
  const retired: string[] = [];
  const removed: string[] = [];
  for (const key of readStoredKeys(dir)) {
    if (key.kid === next.kid) continue;
    if (key.retiredAt === null) {
      writeStoredKey(dir, { ...key, retiredAt: options.now });
      retired.push(key.kid);
    } else if (stateOf(key, options.now, options.tokenLifetimeMs) === 'expired') {
      rmSync(join(dir, `${key.kid}.json`), { force: true });
      removed.push(key.kid);
    }
  }
  return { kid: next.kid, alg: next.alg, retired, removed };
}

/**
 * The signing keys of one data directory as a process sees them: loaded from keys/signing/ and
 * reloaded when the folder changes (a rotation by the CLI reaches a running daemon).
 */
export class SigningKeyRing {
  private keys: SigningKey[] = [];
  private loadedAt = -Infinity;
  private loadedMtimeMs = -1;

  constructor(
    private readonly layout: DataDirLayout,
    private readonly options: SigningKeyRingOptions,
  ) {}

  get algorithm(): AccessTokenAlgorithm {
    return this.options.algorithm;
  }

  /** The newest active key of the configured algorithm (made on first use). */
  async signingKey(): Promise<SigningKey> {
    await this.refresh();
    let key = this.newestActive();
    if (!key) {
      await ensureSigningKey(this.layout, this.options.algorithm, this.options.now());
      await this.refresh(true);
      key = this.newestActive();
    }
    if (!key) throw new Error(`no ${this.options.algorithm} signing key in ${signingKeysDir(this.layout)}`);
    return key;
  }

  /** The key with this kid if it may still verify a token of the configured algorithm. */
  async verificationKey(kid: string): Promise<SigningKey | undefined> {
    await this.refresh();
    const find = () => this.usable().find((key) => key.kid === kid);
    // An unknown kid may be a key another process made a moment ago; re-read at most once a
    // second, so tokens with made-up kids cannot turn every request into a folder scan.
    if (!find() && Date.now() - this.loadedAt >= FORCED_RELOAD_MIN_MS) await this.refresh(true);
    return find();
  }

  /** The public JWK set: every key of the configured algorithm that may still verify, newest first. */
  async jwks(): Promise<{ keys: JWK[] }> {
    await this.refresh();
    return { keys: this.usable().map((key) => ({ ...key.publicJwk, kid: key.kid, alg: key.alg, use: 'sig' })) };
  }

  /** Every key in the folder, any algorithm, oldest first. */
  async list(): Promise<SigningKeyInfo[]> {
    await this.refresh(true);
    return this.keys.map(({ kid, alg, createdAt, retiredAt }) => ({
      kid,
      alg,
      createdAt,
      retiredAt,
      state: stateOf({ retiredAt }, this.options.now(), this.options.tokenLifetimeMs),
    }));
  }

  private newestActive(): SigningKey | undefined {
    return this.keys.filter((key) => key.alg === this.options.algorithm && key.retiredAt === null).at(-1);
  }

  private usable(): SigningKey[] {
    const now = this.options.now();
    return this.keys
      .filter(
        (key) => key.alg === this.options.algorithm && stateOf(key, now, this.options.tokenLifetimeMs) !== 'expired',
      )
      .reverse();
  }

  private async refresh(force = false): Promise<void> {
    const dir = signingKeysDir(this.layout);
    const mtimeMs = existsSync(dir) ? statSync(dir).mtimeMs : 0;
    if (!force && mtimeMs === this.loadedMtimeMs && Date.now() - this.loadedAt < RELOAD_EVERY_MS) return;
    const known = new Map(this.keys.map((key) => [key.kid, key]));
    const loaded: SigningKey[] = [];
    for (const stored of readStoredKeys(dir)) {
      const previous = known.get(stored.kid);
      if (previous) {
        loaded.push({ ...previous, retiredAt: stored.retiredAt });
        continue;
      }
      const privateKey = createPrivateKey(stored.privateKey);
      const publicKey = createPublicKey(privateKey);
      loaded.push({
        kid: stored.kid,
        alg: stored.alg,
        createdAt: stored.createdAt,
        retiredAt: stored.retiredAt,
        privateKey,
        publicKey,
        publicJwk: await exportJWK(publicKey),
      });
    }
    // Oldest first; the kid breaks ties so two processes agree on "newest".
    this.keys = loaded.sort((a, b) => a.createdAt - b.createdAt || a.kid.localeCompare(b.kid));
    this.loadedAt = Date.now();
    this.loadedMtimeMs = mtimeMs;
  }
}
