import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, inject } from 'vitest';

// Each test file runs away from the checkout and from the user's own nodectl, and so does every
// CLI or daemon it spawns (they inherit this process's environment and working directory):
// - no NODECTL_* variable of the environment running the tests (NODECTL_URL, NODECTL_API_KEY,
//   NODECTL_CONFIG, ...) reaches a test or a child; a test passes the ones it means;
// - the working directory, HOME and XDG_CONFIG_HOME are a temporary folder of the file's own
//   (under the run's, test/setup/sandboxes.ts), so
//   the default data directory ./.nodectl (and its config.json) and ~/.config/nodectl/session.json
//   are the test's, never the checkout's or the user's; NODECTL_DATA_DIR names it too, for a
//   child a test runs in the checkout (cwd: PROJECT_ROOT) to read its fixtures.
// - TMPDIR is the file's too, so a folder made under os.tmpdir() goes with the sandbox even when
//   the test that made it does not remove it.
// A test that needs the checkout names it (PROJECT_ROOT); reading its committed files is fine.
// mkdirSync with a fresh name, not mkdtempSync: a unit file's guard replaces mkdtempSync, and
// files that share a fork (isolate: false) run this again after it did. Short: Chromium's socket
// path under it must fit in 107 bytes.
const sandboxes = inject('sandboxes');
const sandbox = join(sandboxes, `file-${randomBytes(6).toString('base64url')}`);
mkdirSync(sandbox);
for (const name of Object.keys(process.env)) if (name.startsWith('NODECTL_')) delete process.env[name];
process.env.HOME = join(sandbox, 'home');
process.env.XDG_CONFIG_HOME = join(sandbox, 'home', '.config');
process.env.NODECTL_DATA_DIR = join(sandbox, '.nodectl');
process.env.TMPDIR = join(sandbox, 'tmp');
mkdirSync(process.env.XDG_CONFIG_HOME, { recursive: true });
mkdirSync(process.env.TMPDIR);
process.chdir(sandbox);

const removeSandbox = () => {
  process.chdir(sandboxes); // out of the folder before it goes, in case this process runs another file
  rmSync(sandbox, { recursive: true, force: true });
};
afterAll(removeSandbox); // and test/setup/sandboxes.ts removes what is left when the run ends
