import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, resolveConfig } from '../../../src/platform/config/config.js';
import { createMailTransport } from '../../../src/control/mail/mail-transport.js';
import { dataDirLayout } from '../../../src/platform/storage/data-dir.js';
import { makeTempDir } from '../../helpers/paths.js';

describe('account settings', () => {
  const temp = makeTempDir();
  afterAll(temp.cleanup);
  const resolve = (env: Record<string, string>) => resolveConfig({ env, flags: { dataDir: temp.dir } }).settings;

  it('default to EdDSA, 30-day sessions, the file mail transport and Google sign-in off', () => {
    expect(resolve({})).toMatchObject({
      accessTokenAlgorithm: 'EdDSA',
      authAudience: 'nodectl',
      sessionLifetimeDays: 30,
      mailTransport: 'file',
      googleClientId: undefined,
      googleIssuers: ['https://accounts.google.com', 'accounts.google.com'],
    });
  });

  it('refuse an algorithm other than EdDSA or RS256, and a session lifetime of 0 days, naming the variable', () => {
    expect(() => resolve({ NODECTL_ACCESS_TOKEN_ALGORITHM: 'HS256' })).toThrowError(ConfigError);
    expect(() => resolve({ NODECTL_ACCESS_TOKEN_ALGORITHM: 'none' })).toThrowError(/NODECTL_ACCESS_TOKEN_ALGORITHM/);
    expect(() => resolve({ NODECTL_SESSION_LIFETIME_DAYS: '0' })).toThrowError(/NODECTL_SESSION_LIFETIME_DAYS/);
  });

  it('read googleIssuers as a comma-separated list from the environment', () => {
    expect(
      resolve({ NODECTL_GOOGLE_ISSUERS: 'https://accounts.google.com, https://idp.example' }).googleIssuers,
    ).toEqual(['https://accounts.google.com', 'https://idp.example']);
    expect(() => resolve({ NODECTL_GOOGLE_ISSUERS: ' , ' })).toThrowError(/NODECTL_GOOGLE_ISSUERS/);
  });

  it('mailTransport smtp without smtpHost fails when the transport is made, saying which setting to set', async () => {
    const settings = resolve({ NODECTL_MAIL_TRANSPORT: 'smtp' });
    await expect(createMailTransport(settings, dataDirLayout(temp.dir))).rejects.toThrow(
      /smtpHost \(NODECTL_SMTP_HOST\)/,
    );
    const file = await createMailTransport(resolve({}), dataDirLayout(temp.dir));
    expect(file.kind).toBe('file');
  });
});
