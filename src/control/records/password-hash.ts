import crypto, { randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * scrypt, looked up on the module at each call rather than bound at load, so a test can watch the
 * runs a login makes (vi.spyOn) whichever test file loaded this module first.
 */
function scrypt(
  password: string,
  salt: Buffer,
  keylen: number,
  options: { N: number; r: number; p: number; maxmem: number },
): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    crypto.scrypt(password, salt, keylen, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}
/** scrypt's work factor: N (CPU and memory), r (block size), p (parallelism). */
export interface ScryptCost {
  readonly N: number;
  readonly r: number;
  readonly p: number;
}

/** What a password is hashed with (128 · N · r bytes of memory: 32 MiB). */
export const PASSWORD_HASH_COST: ScryptCost = { N: 2 ** 15, r: 8, p: 1 };
const MAXMEM = 64 * 1024 * 1024;
export const MIN_PASSWORD_LENGTH = 10;

/**
 * scrypt (node:crypto) with a per-password salt; the string records its parameters, so a hash
 * verifies whatever cost it was made with (tests in process make theirs cheaper: AppServices).
 */
export async function hashPassword(password: string, cost: ScryptCost = PASSWORD_HASH_COST): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, 32, { ...cost, maxmem: MAXMEM });
  return `scrypt$${cost.N}$${cost.r}$${cost.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64');
  const actual = await scrypt(password, Buffer.from(salt, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: MAXMEM,
  });
  return timingSafeEqual(actual, expected);
}
