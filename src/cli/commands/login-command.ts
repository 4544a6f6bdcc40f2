import type { Command } from 'commander';
import { CliError, UsageError } from '../errors.js';
import { createOutput } from '../output.js';
import { cliIo } from '../io.js';

interface LoginFlags {
  url?: string;
  email: string;
  passwordStdin?: boolean;
  totp?: string;
  recoveryCode?: string;
}

/** Reads a line from the terminal without echoing it (the password prompt). */
async function promptHidden(question: string): Promise<string> {
  const { stdin, stderr } = process;
  // Echo off before the prompt shows, so nothing typed at the prompt is ever echoed.
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  stdin.resume();
  stderr.write(question);
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = (outcome: () => void) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      stderr.write('\n');
      outcome();
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return finish(() => resolve(value));
        if (ch === '\u0003') return finish(() => reject(new CliError('cancelled', 130)));
        value = ch === '\u007f' || ch === '\b' ? value.slice(0, -1) : value + ch;
      }
    };
    stdin.on('data', onData);
  });
}

/** Reads a visible answer from the terminal (the authenticator code). */
async function promptLine(question: string): Promise<string> {
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: cliIo().stdin, output: cliIo().stderr as NodeJS.WritableStream });
  try {
    return (await rl.question(question)).trim();
  } finally {
    rl.close();
  }
}

async function readAllStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of cliIo().stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The password, never from a flag (it would sit in the shell history and the process list):
 * --password-stdin, else NODECTL_PASSWORD, else a prompt on a terminal.
 */
async function readPassword(flags: LoginFlags): Promise<string> {
  const { env, stdin } = cliIo();
  if (flags.passwordStdin) {
    if (stdin.isTTY)
      throw new UsageError(
        '--password-stdin reads the password from a pipe, e.g. `printf %s "$PW" | nodectl login ... --password-stdin`',
      );
    return (await readAllStdin()).replace(/\r?\n$/, '');
  }
  if (env.NODECTL_PASSWORD) return env.NODECTL_PASSWORD;
  if (stdin.isTTY) return promptHidden('Password: ');
  throw new UsageError(
    'no password: set NODECTL_PASSWORD, pipe it with --password-stdin, or run nodectl login in a terminal to be asked',
  );
}

function daemonUrl(flag: string | undefined): string {
  const url = flag ?? cliIo().env.NODECTL_URL;
  if (!url) throw new UsageError('give the daemon to sign in to with --url <http(s)://host:port> (or NODECTL_URL)');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--url must be an http(s) URL such as http://127.0.0.1:8787 (got ${url})`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new UsageError(`--url must be an http(s) URL (got ${url})`);
  return parsed.origin;
}

/** `nodectl login` and `nodectl logout`: a user session for the commands that call the API (docs/auth.md). */
export function registerLoginCommands(program: Command): void {
  program
    .command('login')
    .description(
      'sign in to a daemon as a user and keep the session in your config folder (~/.config/nodectl/session.json, mode 0600)',
    )
    .option('--url <url>', 'the daemon, e.g. http://127.0.0.1:8787 (env NODECTL_URL)')
    .requiredOption('--email <email>', 'your account email')
    .option('--password-stdin', 'read the password from standard input (else NODECTL_PASSWORD, else a prompt)')
    .option('--totp <code>', 'the code of your authenticator app, when the account has two-factor sign-in')
    .option('--recovery-code <code>', 'a recovery code instead of --totp')
    .action(async (flags: LoginFlags, command: Command) => {
      const out = createOutput(Boolean(command.optsWithGlobals().json));
      const url = daemonUrl(flags.url);
      if (flags.totp !== undefined && flags.recoveryCode !== undefined)
        throw new UsageError('give --totp or --recovery-code, not both');
      const password = await readPassword(flags);
      const { callAuthRoute } = await import('../auth-api.js');
      const { storedSessionPath, writeStoredSession } = await import('../stored-session.js');
      const body: Record<string, string> = { email: flags.email, password };
      if (flags.totp !== undefined) body.totp = flags.totp;
      if (flags.recoveryCode !== undefined) body.recoveryCode = flags.recoveryCode;
      let answer = await callAuthRoute(url, '/v1/auth/login', { body });
      if (answer.error?.code === 'auth.mfa_required') {
        if (!cliIo().stdin.isTTY || flags.passwordStdin)
          throw new CliError(
            'This account has two-factor sign-in: add --totp <code> (or --recovery-code <code>).',
            1,
            answer.error.code,
          );
        answer = await callAuthRoute(url, '/v1/auth/login', {
          body: { ...body, totp: await promptLine('Authenticator code: ') },
        });
      }
      if (answer.error)
        throw new CliError(answer.error.message, 1, answer.error.code, { details: answer.error.details });
      const grant = answer.data as { refreshToken: string; user: { id: string; email: string } };
      const path = storedSessionPath();
      writeStoredSession(
        {
          version: 1,
          url,
          email: grant.user.email,
          userId: grant.user.id,
          refreshToken: grant.refreshToken,
          savedAt: new Date().toISOString(),
        },
        path,
      );
      out.result(
        { url, email: grant.user.email, userId: grant.user.id, sessionFile: path },
        () => `signed in to ${url} as ${grant.user.email}; session saved in ${path}`,
      );
    });

  program
    .command('logout')
    .description('end the session nodectl login saved (on the daemon too) and remove it')
    .action(async (_flags, command: Command) => {
      const out = createOutput(Boolean(command.optsWithGlobals().json));
      const { readStoredSession, removeStoredSession, storedSessionPath } = await import('../stored-session.js');
      const path = storedSessionPath();
      const session = readStoredSession(path);
      if (!session) return out.result({ signedOut: false, sessionFile: path }, () => `not signed in (no ${path})`);
      const { callAuthRoute, refreshStoredSession } = await import('../auth-api.js');
      let revoked = false;
      try {
        const { accessToken } = await refreshStoredSession(session, path);
        revoked = (await callAuthRoute(session.url, '/v1/auth/logout', { accessToken })).status === 204;
      } catch (error) {
        // The local session goes either way; say why the daemon may still hold it.
        out.info(`nodectl: could not end the session on ${session.url}: ${(error as Error).message}`);
      }
      removeStoredSession(path);
      out.result(
        { signedOut: true, revoked, url: session.url, sessionFile: path },
        () => `signed out of ${session.url}${revoked ? '' : ' (locally only)'}; removed ${path}`,
      );
    });
}
