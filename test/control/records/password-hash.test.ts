import { describe, expect, it } from 'vitest';
import { hashPassword, PASSWORD_HASH_COST, verifyPassword } from '../../../src/control/records/password-hash.js';

describe('password hashes', () => {
  it('are scrypt with N = 2^15, r = 8, p = 1 and a 16-byte salt, and the string records that cost', async () => {
    expect(PASSWORD_HASH_COST).toEqual({ N: 32768, r: 8, p: 1 });
    const hash = await hashPassword('correct-horse-battery');
    const [scheme, n, r, p, salt, key] = hash.split('$');
    expect([scheme, n, r, p]).toEqual(['scrypt', '32768', '8', '1']);
    expect(Buffer.from(salt!, 'base64')).toHaveLength(16);
    expect(Buffer.from(key!, 'base64')).toHaveLength(32);
    expect(await hashPassword('correct-horse-battery')).not.toBe(hash);
  });

  it('verify with the cost a hash records, whatever it is, and refuse a wrong password or a malformed string', async () => {
    for (const cost of [PASSWORD_HASH_COST, { N: 2 ** 10, r: 8, p: 1 }]) {
      const hash = await hashPassword('correct-horse-battery', cost);
      expect(hash.startsWith(`scrypt$${cost.N}$8$1$`)).toBe(true);
      expect(await verifyPassword('correct-horse-battery', hash)).toBe(true);
      expect(await verifyPassword('correct-horse-batterY', hash)).toBe(false);
    }
    expect(await verifyPassword('correct-horse-battery', 'bcrypt$x')).toBe(false);
    expect(await verifyPassword('correct-horse-battery', '')).toBe(false);
  });
});
