import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { Secret, TOTP } from 'otpauth';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runNodectlInProcess } from '../../helpers/cli-in-process.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/daemon.js';
import { makeTempDir, NODECTL_BIN } from '../../helpers/paths.js';

/** `nodectl login` / `logout` against a spawned daemon, with a temporary HOME as the user's home. */
let daemon: TestDaemon;
let home: { dir: string; cleanup: () => void };
const PASSWORD = 'the cli password 123';

async function post(path: string, body: unknown, accessToken?: string): Promise<{ status: number; json: any }> {
  const res = await request(`${daemon.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(accessToken ? { authorization: `Bearer ${accessToken}` } : {}) },
    body: JSON.stringify(body),
  });
  const text = await res.body.text();
  return { status: res.statusCode, json: text ? JSON.parse(text) : undefined };
}

/** The CLI as the test user: HOME is the temporary folder, XDG_CONFIG_HOME unset unless given. */
function asUser(args: string[], env: Record<string, string> = {}, input?: string) {
  return runNodectlInProcess(args, {
    env: { HOME: home.dir, XDG_CONFIG_HOME: '', NODECTL_PASSWORD: '', ...env },
    input,
  });
}

beforeAll(async () => {
  daemon = await startTestDaemon();
  home = makeTempDir('nodectl-home-');
  for (const email of ['cli@example.com', 'mfa@example.com'])
    expect((await post('/v1/auth/register', { email, password: PASSWORD, orgName: 'CLI Org' })).status).toBe(201);
}, 60_000);
afterAll(async () => {
  await daemon?.stop();
  home?.cleanup();
});

describe('nodectl login and logout', () => {
  it('login with NODECTL_PASSWORD stores the refresh token in ~/.config/nodectl/session.json (0600 in a 0700 folder) and prints no secret; logout ends the session on the daemon and removes the file', async () => {
    const login = await asUser(['login', '--url', daemon.url, '--email', 'cli@example.com'], {
      NODECTL_PASSWORD: PASSWORD,
    });
    expect(login.exitCode, login.stderr).toBe(0);
    const file = join(home.dir, '.config', 'nodectl', 'session.json');
    expect(login.stdout).toContain(`signed in to ${daemon.url} as cli@example.com; session saved in ${file}`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(home.dir, '.config', 'nodectl')).mode & 0o777).toBe(0o700);
    const session = JSON.parse(readFileSync(file, 'utf8'));
    expect(session).toMatchObject({
      version: 1,
      url: daemon.url,
      email: 'cli@example.com',
      userId: expect.stringMatching(/^usr_/),
      refreshToken: expect.stringMatching(/^[\w-]{43}$/),
    });
    for (const text of [login.stdout, login.stderr]) {
      expect(text).not.toContain(PASSWORD);
      expect(text).not.toContain(session.refreshToken);
    }

    const { readStoredSession } = await import('../../../src/cli/stored-session.js');
    expect(readStoredSession(file)).toEqual(session);

    const logout = await asUser(['logout']);
    expect(logout.exitCode, logout.stderr).toBe(0);
    expect(logout.stdout).toContain(`signed out of ${daemon.url}; removed ${file}`);
    expect(existsSync(file)).toBe(false);
    // The daemon ended the session: the stored token (and the one logout rotated it to) no longer refresh.
    expect((await post('/v1/auth/refresh', { refreshToken: session.refreshToken })).status).toBe(401);
    expect((await asUser(['logout'])).stdout).toContain('not signed in');
  });

  it('--password-stdin reads the password from a pipe; XDG_CONFIG_HOME moves the file; --json answers the session file', async () => {
    const xdg = join(home.dir, 'xdg');
    const login = await asUser(
      ['--json', 'login', '--url', daemon.url, '--email', 'cli@example.com', '--password-stdin'],
      { XDG_CONFIG_HOME: xdg },
      `${PASSWORD}\n`,
    );
    expect(login.exitCode, login.stderr).toBe(0);
    expect(login.json()).toMatchObject({
      url: daemon.url,
      email: 'cli@example.com',
      sessionFile: join(xdg, 'nodectl', 'session.json'),
    });
    expect(statSync(join(xdg, 'nodectl', 'session.json')).mode & 0o777).toBe(0o600);
    expect((await asUser(['logout'], { XDG_CONFIG_HOME: xdg })).exitCode).toBe(0);
  });

  it('a wrong password fails with [auth.invalid_credentials] and stores nothing; no password source is a usage error (exit 2); a bad --url too', async () => {
    const wrong = await asUser(['login', '--url', daemon.url, '--email', 'cli@example.com'], {
      NODECTL_PASSWORD: 'not the password',
    });
    expect(wrong.exitCode).toBe(1);
    expect(wrong.stderr).toContain('[auth.invalid_credentials]');
    expect(existsSync(join(home.dir, '.config', 'nodectl', 'session.json'))).toBe(false);
    const none = await asUser(['login', '--url', daemon.url, '--email', 'cli@example.com']);
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toMatch(/NODECTL_PASSWORD.*--password-stdin/);
    const badUrl = await asUser(['login', '--url', 'ftp://x', '--email', 'cli@example.com'], {
      NODECTL_PASSWORD: PASSWORD,
    });
    expect(badUrl.exitCode).toBe(2);
  });

  it('an account with 2FA needs --totp (without a terminal the error says so)', async () => {
    const { accessToken } = (await post('/v1/auth/login', { email: 'mfa@example.com', password: PASSWORD })).json.data;
    const { secret } = (await post('/v1/auth/2fa/setup', {}, accessToken)).json.data;
    const totp = new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) });
    const activatedAt = Date.now();
    expect(
      (await post('/v1/auth/2fa/activate', { code: totp.generate({ timestamp: activatedAt }) }, accessToken)).status,
    ).toBe(200);
    const missing = await asUser(['login', '--url', daemon.url, '--email', 'mfa@example.com'], {
      NODECTL_PASSWORD: PASSWORD,
    });
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toContain('[auth.mfa_required]');
    expect(missing.stderr).toContain('--totp');
    const login = await asUser(
      [
        'login',
        '--url',
        daemon.url,
        '--email',
        'mfa@example.com',
        '--totp',
        totp.generate({ timestamp: activatedAt + 30_000 }),
      ],
      { NODECTL_PASSWORD: PASSWORD },
    );
    expect(login.exitCode, login.stderr).toBe(0);
    expect((await asUser(['logout'])).exitCode).toBe(0);
  });

  it('on a terminal it asks for the password without echoing it, even typed the instant the prompt shows (the prompt came before echo was off) (a pseudo-terminal made by script(1))', async () => {
    const child = execa(
      'script',
      ['-qec', `node ${NODECTL_BIN} login --url ${daemon.url} --email cli@example.com`, '/dev/null'],
      {
        env: { HOME: home.dir, XDG_CONFIG_HOME: '', NODECTL_PASSWORD: '', NODECTL_LOG_LEVEL: 'warn' },
        reject: false,
        timeout: 30_000,
      },
    );
    let output = '';
    let typed = false;
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      // Type only once the prompt is up (raw mode set), as a person would.
      if (!typed && output.includes('Password: ')) {
        typed = true;
        child.stdin!.write(`${PASSWORD}\r`);
      }
    });
    const result = await child;
    expect(result.exitCode, output).toBe(0);
    expect(output).toContain('signed in to');
    expect(output).not.toContain(PASSWORD);
    expect(existsSync(join(home.dir, '.config', 'nodectl', 'session.json'))).toBe(true);
    expect((await asUser(['logout'])).exitCode).toBe(0);
  });

  it('a damaged session file is reported with what to do, not a stack', async () => {
    const file = join(home.dir, '.config', 'nodectl', 'session.json');
    mkdirSync(join(home.dir, '.config', 'nodectl'), { recursive: true });
    writeFileSync(file, '{"not": "a session"}');
    const logout = await asUser(['logout']);
    expect(logout.exitCode).toBe(1);
    expect(logout.stderr).toContain('run nodectl login again');
    expect(logout.stderr).not.toContain('at ');
  });
});
