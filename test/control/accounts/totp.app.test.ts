import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { Secret, TOTP } from 'otpauth';
import { login } from '../../../src/control/accounts/login.js';
import { deriveMasterSubkey, openSecret } from '../../../src/control/accounts/secret-box.js';
import {
  activateTotp,
  beginTotpSetup,
  disableTotp,
  matchTotpStep,
  readTwoFactorStatus,
  regenerateRecoveryCodes,
} from '../../../src/control/accounts/totp.js';
import { createUser } from '../../../src/control/records/users.js';
import { openAccountsFixture, type AccountsFixture } from './support.js';

/** RFC 4226 section 5.3, written out with node:crypto: the reference the library must agree with. */
function hotp(key: Buffer, counter: number, digits: number, algorithm = 'sha1'): string {
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac(algorithm, key).update(message).digest();
  const offset = mac[mac.length - 1]! & 0x0f;
  const binary = ((mac[offset]! & 0x7f) << 24) | (mac[offset + 1]! << 16) | (mac[offset + 2]! << 8) | mac[offset + 3]!;
  return String(binary % 10 ** digits).padStart(digits, '0');
}

/** RFC 4648 base32 decoding, independent of otpauth. */
function base32Decode(text: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const c of text.replace(/=+$/, '')) bits += alphabet.indexOf(c).toString(2).padStart(5, '0');
  return Buffer.from(bits.match(/.{8}/g)!.map((b) => parseInt(b, 2)));
}

const stepOf = (ms: number) => Math.floor(ms / 30_000);

describe('TOTP codes (RFC 6238)', () => {
  // Appendix B, SHA-1 rows: the seed is the ASCII string "12345678901234567890".
  const seed = Buffer.from('12345678901234567890', 'ascii');
  const VECTORS: Array<[number, string]> = [
    [59, '94287082'],
    [1111111109, '07081804'],
    [1111111111, '14050471'],
    [1234567890, '89005924'],
    [2000000000, '69279037'],
    [20000000000, '65353130'],
  ];

  it.each(VECTORS)(
    'Appendix B, T = %i s: otpauth (SHA-1, 8 digits) and an RFC 4226 HOTP over node:crypto both give %s',
    (seconds, expected) => {
      const totp = new TOTP({
        algorithm: 'SHA1',
        digits: 8,
        period: 30,
        secret: new Secret({ buffer: new Uint8Array(seed).buffer }),
      });
      expect(totp.generate({ timestamp: seconds * 1000 })).toBe(expected);
      expect(hotp(seed, Math.floor(seconds / 30), 8)).toBe(expected);
    },
  );

  it('our 6-digit codes are what an authenticator (oathtool --totp) computes from the enrolled secret, one step either side accepted, two refused', () => {
    const secret = new Secret({ size: 20 }).base32;
    const key = base32Decode(secret);
    const now = Date.UTC(2025, 2, 1, 12, 0, 10);
    const step = stepOf(now);
    for (const delta of [-1, 0, 1]) expect(matchTotpStep(secret, hotp(key, step + delta, 6), now)).toBe(step + delta);
    for (const delta of [-2, 2]) expect(matchTotpStep(secret, hotp(key, step + delta, 6), now)).toBeNull();
    expect(matchTotpStep(secret, '12345', now)).toBeNull();
  });
});

describe('two-factor sign-in', () => {
  const fixtures: AccountsFixture[] = [];
  afterEach(() => fixtures.splice(0).forEach((f) => f.close()));
  const PASSWORD = 'correct-horse-battery';

  /** A user who went through setup; returns the secret's key for computing codes as the app would. */
  async function enrolled() {
    const f = await openAccountsFixture();
    fixtures.push(f);
    const user = await createUser(f.db, { email: 'grace@example.com', password: PASSWORD }, f.clock.now);
    const setup = beginTotpSetup(f.ctx, { userId: user.id });
    const key = base32Decode(setup.secret);
    const code = (delta = 0) => hotp(key, stepOf(f.clock.now) + delta, 6);
    return { f, user, setup, key, code };
  }

  async function codeOf(
    promise: Promise<unknown> | (() => unknown),
  ): Promise<{ code?: string; details?: unknown } | undefined> {
    try {
      await (typeof promise === 'function' ? promise() : promise);
      return undefined;
    } catch (error) {
      return error as { code?: string };
    }
  }

  it('setup returns the base32 secret and an otpauth URI (SHA1, 6 digits, 30 s); the secret is stored AES-GCM encrypted under a key derived from master.key, bound to the user', async () => {
    const { f, user, setup } = await enrolled();
    expect(setup.secret).toMatch(/^[A-Z2-7]{32}$/);
    const uri = new URL(setup.otpauthUri);
    expect(uri.protocol + uri.host).toBe('otpauth:totp');
    expect(Object.fromEntries(uri.searchParams)).toMatchObject({
      secret: setup.secret,
      algorithm: 'SHA1',
      digits: '6',
      period: '30',
      issuer: 'nodectl',
    });
    expect(decodeURIComponent(uri.pathname)).toBe('/nodectl:grace@example.com');
    const stored = f.db
      .prepare('SELECT secret_ciphertext FROM user_totp WHERE user_id = ?')
      .pluck()
      .get(user.id) as string;
    expect(stored).not.toContain(setup.secret);
    expect(stored).toMatch(/^v1\./);
    const key = deriveMasterSubkey(f.ctx.masterKey, 'nodectl.totp-secret.v1');
    expect(openSecret(key, stored, user.id)).toBe(setup.secret);
    expect(() => openSecret(key, stored, 'usr_someone_else')).toThrow();
    expect(() =>
      openSecret(deriveMasterSubkey(Buffer.alloc(32, 7), 'nodectl.totp-secret.v1'), stored, user.id),
    ).toThrow();
    expect(readTwoFactorStatus(f.ctx, { userId: user.id })).toEqual({
      enabled: false,
      pending: true,
      recoveryCodesRemaining: 0,
    });
  });

  it('activate needs a valid code, turns 2FA on and returns 10 distinct recovery codes stored only as hashes', async () => {
    const { f, user, code } = await enrolled();
    expect(
      await codeOf(() => activateTotp(f.ctx, { userId: user.id }, { code: '000000' === code() ? '111111' : '000000' })),
    ).toMatchObject({ code: 'auth.mfa_invalid' });
    const { recoveryCodes } = activateTotp(f.ctx, { userId: user.id }, { code: code() });
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    for (const rc of recoveryCodes) expect(rc).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/);
    const rows = JSON.stringify(f.db.prepare('SELECT * FROM recovery_codes').all());
    for (const rc of recoveryCodes) expect(rows).not.toContain(rc.replace('-', ''));
    expect(readTwoFactorStatus(f.ctx, { userId: user.id })).toEqual({
      enabled: true,
      pending: false,
      recoveryCodesRemaining: 10,
    });
    expect(await codeOf(() => beginTotpSetup(f.ctx, { userId: user.id }))).toMatchObject({
      code: 'auth.mfa_already_enabled',
    });
  });

  it('with 2FA on, login without a code is auth.mfa_required with details.mfa = "totp"; with the current code it signs in', async () => {
    const { f, user, code } = await enrolled();
    activateTotp(f.ctx, { userId: user.id }, { code: code() });
    f.advance(30_000);
    expect(await codeOf(login(f.ctx, { email: 'grace@example.com', password: PASSWORD }))).toMatchObject({
      code: 'auth.mfa_required',
      status: 401,
      details: { mfa: 'totp' },
    });
    // A wrong password is still invalid_credentials: 2FA state is not revealed before the password.
    expect(await codeOf(login(f.ctx, { email: 'grace@example.com', password: 'wrong-password-1' }))).toMatchObject({
      code: 'auth.invalid_credentials',
    });
    const signedIn = await login(f.ctx, { email: 'grace@example.com', password: PASSWORD, totp: code() });
    expect(signedIn.grant.user).toMatchObject({ id: user.id, mfaEnabled: true });
  });

  it('a code is accepted at most once: the same code again, or an earlier step, is auth.mfa_invalid (the last used step is remembered)', async () => {
    const { f, user, code } = await enrolled();
    activateTotp(f.ctx, { userId: user.id }, { code: code() });
    // The activation spent the current step.
    expect(await codeOf(login(f.ctx, { email: 'grace@example.com', password: PASSWORD, totp: code() }))).toMatchObject({
      code: 'auth.mfa_invalid',
    });
    f.advance(30_000);
    const fresh = code();
    await login(f.ctx, { email: 'grace@example.com', password: PASSWORD, totp: fresh });
    expect(await codeOf(login(f.ctx, { email: 'grace@example.com', password: PASSWORD, totp: fresh }))).toMatchObject({
      code: 'auth.mfa_invalid',
    });
    expect(
      await codeOf(login(f.ctx, { email: 'grace@example.com', password: PASSWORD, totp: code(-1) })),
    ).toMatchObject({ code: 'auth.mfa_invalid' });
  });

  it("one step of skew: the code of the previous step activates and the next step's signs in; two steps off either way is refused", async () => {
    const { f, user, code } = await enrolled();
    activateTotp(f.ctx, { userId: user.id }, { code: code(-1) });
    expect(await codeOf(login(f.ctx, { email: 'grace@example.com', password: PASSWORD, totp: code(2) }))).toMatchObject(
      { code: 'auth.mfa_invalid' },
    );
    expect(
      await codeOf(login(f.ctx, { email: 'grace@example.com', password: PASSWORD, totp: code(-2) })),
    ).toMatchObject({ code: 'auth.mfa_invalid' });
    await expect(
      login(f.ctx, { email: 'grace@example.com', password: PASSWORD, totp: code(1) }),
    ).resolves.toBeDefined();
  });

  it('a recovery code signs in once (any case, with or without the dash); regenerate replaces every code', async () => {
    const { f, user, code } = await enrolled();
    const { recoveryCodes } = activateTotp(f.ctx, { userId: user.id }, { code: code() });
    const [first, second] = recoveryCodes as [string, string];
    await expect(
      login(f.ctx, {
        email: 'grace@example.com',
        password: PASSWORD,
        recoveryCode: first.toUpperCase().replace('-', ''),
      }),
    ).resolves.toBeDefined();
    expect(
      await codeOf(login(f.ctx, { email: 'grace@example.com', password: PASSWORD, recoveryCode: first })),
    ).toMatchObject({ code: 'auth.mfa_invalid' });
    expect(readTwoFactorStatus(f.ctx, { userId: user.id }).recoveryCodesRemaining).toBe(9);

    const { recoveryCodes: replaced } = regenerateRecoveryCodes(f.ctx, { userId: user.id }, { recoveryCode: second });
    expect(replaced).toHaveLength(10);
    expect(readTwoFactorStatus(f.ctx, { userId: user.id }).recoveryCodesRemaining).toBe(10);
    // Four of the old codes: a fifth wrong code in a row would lock the factor (factor-lockout.app.test.ts).
    for (const old of recoveryCodes.slice(2, 6))
      expect(
        await codeOf(login(f.ctx, { email: 'grace@example.com', password: PASSWORD, recoveryCode: old })),
      ).toMatchObject({ code: 'auth.mfa_invalid' });
    await expect(
      login(f.ctx, { email: 'grace@example.com', password: PASSWORD, recoveryCode: replaced[0] }),
    ).resolves.toBeDefined();
  });

  it('disable needs a current second factor, then login needs the password only; activate before setup is auth.mfa_not_enrolled', async () => {
    const { f, user, code } = await enrolled();
    activateTotp(f.ctx, { userId: user.id }, { code: code() });
    f.advance(30_000);
    expect(await codeOf(() => disableTotp(f.ctx, { userId: user.id }, {}))).toMatchObject({
      code: 'validation.failed',
    });
    expect(await codeOf(() => disableTotp(f.ctx, { userId: user.id }, { totp: code(-1) }))).toMatchObject({
      code: 'auth.mfa_invalid',
    });
    disableTotp(f.ctx, { userId: user.id }, { totp: code() });
    expect(readTwoFactorStatus(f.ctx, { userId: user.id })).toEqual({
      enabled: false,
      pending: false,
      recoveryCodesRemaining: 0,
    });
    expect(f.db.prepare('SELECT COUNT(*) FROM recovery_codes').pluck().get()).toBe(0);
    await expect(login(f.ctx, { email: 'grace@example.com', password: PASSWORD })).resolves.toBeDefined();
    expect(await codeOf(() => activateTotp(f.ctx, { userId: user.id }, { code: code() }))).toMatchObject({
      code: 'auth.mfa_not_enrolled',
    });
    expect(await codeOf(() => disableTotp(f.ctx, { userId: user.id }, { totp: code() }))).toMatchObject({
      code: 'auth.mfa_not_enrolled',
    });
  });
});
