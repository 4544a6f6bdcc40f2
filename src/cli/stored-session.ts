import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from '../platform/storage/index.js';
import { CliError } from './errors.js';
import { cliIo } from './io.js';

/**
 * The session `nodectl login` keeps for the commands that call the API as a user: the daemon's
 * URL and a refresh token, in the user's config folder (not the data directory: it belongs to the
 * person, not to a daemon), readable by its owner only.
 */
const StoredSessionSchema = z.object({
  version: z.literal(1),
  url: z.url(),
  email: z.string(),
  userId: z.string(),
  refreshToken: z.string().min(1),
  savedAt: z.string(),
});
export type StoredSession = z.infer<typeof StoredSessionSchema>;

/**
 * `$XDG_CONFIG_HOME/nodectl/session.json`, else
 * `~/.config/nodectl/session.json` (an empty XDG_CONFIG_HOME counts as unset).
 */
export function storedSessionPath(env: NodeJS.ProcessEnv = cliIo().env): string {
  const configHome = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(configHome, 'nodectl', 'session.json');
}

/** The stored session, or undefined when nobody signed in; a damaged file is a CliError that says what to do. */
export function readStoredSession(path = storedSessionPath()): StoredSession | undefined {
  if (!existsSync(path)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    parsed = undefined;
  }
  const session = StoredSessionSchema.safeParse(parsed);
  if (!session.success)
    throw new CliError(`${path} is not a session nodectl wrote; remove it and run nodectl login again.`);
  return session.data;
}

/** Writes the session atomically, mode 0600 in a 0700 folder: it holds a refresh token. */
export function writeStoredSession(session: StoredSession, path = storedSessionPath()): void {
  mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 });
  writeFileAtomic(path, `${JSON.stringify(session, null, 2)}\n`, { mode: 0o600 });
}

/** Removes the stored session; false when there was none. */
export function removeStoredSession(path = storedSessionPath()): boolean {
  if (!existsSync(path)) return false;
  rmSync(path, { force: true });
  return true;
}
