import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SMTPServer } from 'smtp-server';
import { createFileMailTransport } from '../../../src/control/mail/mail-file-transport.js';
import { createSmtpMailTransport } from '../../../src/control/mail/mail-smtp-transport.js';
import { renderMail } from '../../../src/control/mail/mail-templates.js';
import { consumeMailToken, issueMailToken } from '../../../src/control/accounts/mail-tokens.js';
import { hashOpaqueToken } from '../../../src/control/accounts/opaque-tokens.js';
import { createUser } from '../../../src/control/records/users.js';
import { makeTempDir } from '../../helpers/paths.js';
import { MINUTE, openAccountsFixture, type AccountsFixture } from './support.js';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Header fields of an RFC 5322 message (unfolded), and its body. */
function parseMessage(raw: string): { headers: Map<string, string>; body: string } {
  const split = raw.indexOf('\r\n\r\n');
  const headers = new Map<string, string>();
  for (const line of raw
    .slice(0, split)
    .replace(/\r\n[ \t]+/g, ' ')
    .split('\r\n')) {
    const colon = line.indexOf(':');
    headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  return { headers, body: raw.slice(split + 4) };
}

describe('file mail transport', () => {
  it('writes each message as an RFC 5322 .eml (CRLF lines, Date, Message-ID, MIME headers, encoded non-ASCII subject) that reads back whole; names sort in sending order', async () => {
    const temp = makeTempDir();
    cleanups.push(temp.cleanup);
    const transport = createFileMailTransport({ dir: temp.dir });
    const first = await transport.send({
      from: 'nodectl <no-reply@example.test>',
      to: 'ada@example.com',
      subject: 'Confirm your email address',
      text: 'Hello,\n\nline two\n',
    });
    const second = await transport.send({
      from: 'nodectl <no-reply@example.test>',
      to: 'zoë@example.com',
      subject: 'Join Café Zoë on nodectl',
      text: 'Grüße\n',
    });
    const files = readdirSync(temp.dir);
    expect(files.every((f) => /^[0-9A-Z]{26}\.eml$/.test(f))).toBe(true);
    expect(files.filter((f) => f.startsWith('.'))).toEqual([]);
    const [a, b] = files.sort().map((f) => readFileSync(join(temp.dir, f), 'utf8'));
    expect(a).not.toMatch(/[^\r]\n/);
    const one = parseMessage(a!);
    expect(one.headers.get('from')).toBe('nodectl <no-reply@example.test>');
    expect(one.headers.get('to')).toBe('ada@example.com');
    expect(one.headers.get('subject')).toBe('Confirm your email address');
    expect(one.headers.get('message-id')).toBe(first.messageId);
    expect(first.messageId).toMatch(/^<[0-9A-Z]{26}@example\.test>$/);
    expect(new Date(one.headers.get('date')!).getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect(one.headers.get('mime-version')).toBe('1.0');
    expect(one.headers.get('content-type')).toMatch(/^text\/plain; charset=utf-8/);
    expect(one.body).toBe('Hello,\r\n\r\nline two\r\n');
    const two = parseMessage(b!);
    expect(two.headers.get('subject')).toMatch(/^=\?UTF-8\?[QB]\?/);
    expect(two.headers.get('message-id')).toBe(second.messageId);
  });
});

describe('SMTP mail transport', () => {
  async function startSmtpServer(auth?: { user: string; pass: string }) {
    const received: Array<{ from: string; to: string[]; raw: string; user?: string }> = [];
    const server = new SMTPServer({
      disabledCommands: auth ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
      allowInsecureAuth: true,
      authOptional: !auth,
      onAuth(credentials, _session, callback) {
        if (auth && credentials.username === auth.user && credentials.password === auth.pass)
          return callback(null, { user: credentials.username });
        return callback(new Error('Invalid username or password'));
      },
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => {
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((r) => r.address),
            raw: Buffer.concat(chunks).toString('utf8'),
            user: session.user as string | undefined,
          });
          callback();
        });
      },
      logger: false,
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    return { port: (server.server.address() as AddressInfo).port, received };
  }

  it('delivers to a real SMTP server with credentials: envelope, headers and body arrive intact', async () => {
    const smtp = await startSmtpServer({ user: 'mailer', pass: 's3cret-pass' });
    const transport = createSmtpMailTransport({
      host: '127.0.0.1',
      port: smtp.port,
      secure: false,
      user: 'mailer',
      pass: 's3cret-pass',
    });
    cleanups.push(() => transport.close());
    const message = renderMail({ kind: 'password_reset', to: 'ada@example.com', token: 'T'.repeat(43) }, {});
    const { messageId } = await transport.send({ ...message, from: 'nodectl <no-reply@example.test>' });
    expect(smtp.received).toHaveLength(1);
    const got = smtp.received[0]!;
    expect(got).toMatchObject({ from: 'no-reply@example.test', to: ['ada@example.com'], user: 'mailer' });
    const parsed = parseMessage(got.raw);
    expect(parsed.headers.get('subject')).toBe('Reset your password');
    expect(parsed.headers.get('message-id')).toBe(messageId);
    expect(parsed.body.replace(/=\r\n/g, '')).toContain(`Your token: ${'T'.repeat(43)}`);
  });

  it('wrong credentials and an unreachable server fail the send (the outbox logs them, never the text)', async () => {
    const smtp = await startSmtpServer({ user: 'mailer', pass: 's3cret-pass' });
    const wrong = createSmtpMailTransport({
      host: '127.0.0.1',
      port: smtp.port,
      secure: false,
      user: 'mailer',
      pass: 'wrong',
    });
    cleanups.push(() => wrong.close());
    await expect(wrong.send({ from: 'a@example.test', to: 'b@example.test', subject: 's', text: 't' })).rejects.toThrow(
      /Invalid login: 535/,
    );
    const closed = createSmtpMailTransport({ host: '127.0.0.1', port: 1, secure: false });
    cleanups.push(() => closed.close());
    await expect(
      closed.send({ from: 'a@example.test', to: 'b@example.test', subject: 's', text: 't' }),
    ).rejects.toThrow();
    expect(smtp.received).toEqual([]);
  });

  it('its settings are validated together: a host is required, and user and pass come as a pair', () => {
    expect(() => createSmtpMailTransport({ port: 587, secure: false })).toThrow(/smtpHost/);
    expect(() =>
      createSmtpMailTransport({ host: 'smtp.example.test', port: 587, secure: false, user: 'mailer' }),
    ).toThrow(/smtpUser and smtpPass/);
  });
});

describe('mailed tokens', () => {
  const fixtures: AccountsFixture[] = [];
  afterEach(() => fixtures.splice(0).forEach((f) => f.close()));

  async function withUser() {
    const f = await openAccountsFixture();
    fixtures.push(f);
    const user = await createUser(f.db, { email: 'ada@example.com', password: 'correct-horse-battery' }, f.clock.now);
    return { f, userId: user.id };
  }

  const codeOf = (fn: () => unknown) => {
    try {
      fn();
      return undefined;
    } catch (error) {
      return (error as { code?: string }).code;
    }
  };

  it('issue gives a token stored only as its hash; consume gives the subject back once, then auth.mail_token_used', async () => {
    const { f, userId } = await withUser();
    const token = issueMailToken(
      f.db,
      'organization_transfer',
      { userId, email: 'ada@example.com', payload: { organizationId: 'org_1' } },
      f.clock.now,
    );
    expect(JSON.stringify(f.db.prepare('SELECT * FROM mail_tokens').all())).not.toContain(token);
    expect(
      f.db.prepare('SELECT COUNT(*) FROM mail_tokens WHERE token_hash = ?').pluck().get(hashOpaqueToken(token)),
    ).toBe(1);
    expect(consumeMailToken(f.db, 'organization_transfer', token, f.clock.now)).toMatchObject({
      kind: 'organization_transfer',
      userId,
      email: 'ada@example.com',
      payload: { organizationId: 'org_1' },
    });
    expect(codeOf(() => consumeMailToken(f.db, 'organization_transfer', token, f.clock.now))).toBe(
      'auth.mail_token_used',
    );
  });

  it('verification expires after 24 h and reset after 1 h (auth.mail_token_expired); a token of another kind or an unknown one is auth.mail_token_invalid', async () => {
    const { f, userId } = await withUser();
    const verify = issueMailToken(f.db, 'email_verification', { userId, email: 'ada@example.com' }, f.clock.now);
    const reset = issueMailToken(f.db, 'password_reset', { userId, email: 'ada@example.com' }, f.clock.now);
    expect(codeOf(() => consumeMailToken(f.db, 'password_reset', verify, f.clock.now))).toBe('auth.mail_token_invalid');
    expect(codeOf(() => consumeMailToken(f.db, 'password_reset', 'A'.repeat(43), f.clock.now))).toBe(
      'auth.mail_token_invalid',
    );
    f.advance(60 * MINUTE);
    expect(codeOf(() => consumeMailToken(f.db, 'password_reset', reset, f.clock.now))).toBe('auth.mail_token_expired');
    f.advance(23 * 60 * MINUTE - 1);
    expect(consumeMailToken(f.db, 'email_verification', verify, f.clock.now)).toMatchObject({ userId });
    const late = issueMailToken(f.db, 'email_verification', { userId, email: 'ada@example.com' }, f.clock.now);
    f.advance(24 * 60 * MINUTE);
    expect(codeOf(() => consumeMailToken(f.db, 'email_verification', late, f.clock.now))).toBe(
      'auth.mail_token_expired',
    );
  });

  it("a new reset token replaces the user's earlier unused one: only the latest mail works", async () => {
    const { f, userId } = await withUser();
    const older = issueMailToken(f.db, 'password_reset', { userId, email: 'ada@example.com' }, f.clock.now);
    const newer = issueMailToken(f.db, 'password_reset', { userId, email: 'ada@example.com' }, f.clock.now);
    expect(codeOf(() => consumeMailToken(f.db, 'password_reset', older, f.clock.now))).toBe('auth.mail_token_invalid');
    expect(consumeMailToken(f.db, 'password_reset', newer, f.clock.now)).toMatchObject({ userId });
  });
});

describe('mail templates', () => {
  it('are plain text with a link under appBaseUrl when set, else the bare token and the route to use; control characters in names never reach a header', () => {
    const linked = renderMail(
      { kind: 'email_verification', to: 'ada@example.com', token: 'tok_' + 'x'.repeat(39) },
      { appBaseUrl: 'https://app.example.test' },
    );
    expect(linked.text).toContain(`https://app.example.test/verify-email?token=tok_${'x'.repeat(39)}`);
    expect(linked.text).toContain('expires in 24 hours');
    const bare = renderMail({ kind: 'password_reset', to: 'ada@example.com', token: 'y'.repeat(43) });
    expect(bare.text).toContain(`Your token: ${'y'.repeat(43)}`);
    expect(bare.text).toContain('POST /v1/auth/password/reset');
    expect(bare.text).toContain('expires in 1 hour');
    const transfer = renderMail({
      kind: 'organization_transfer',
      to: 'b@example.com',
      token: 'z'.repeat(43),
      organizationName: 'Evil\r\nBcc: victim@example.com',
      fromEmail: 'a@example.com',
    });
    expect(transfer.subject).toBe('Take over the organization Evil Bcc: victim@example.com');
    const invitation = renderMail({
      kind: 'invitation',
      to: 'c@example.com',
      token: 'w'.repeat(43),
      organizationName: 'Acme',
      role: 'editor',
      fromEmail: 'a@example.com',
    });
    expect(invitation).toMatchObject({ to: 'c@example.com', subject: 'Join Acme on nodectl' });
    expect(invitation.text).toContain('as editor');
  });
});
