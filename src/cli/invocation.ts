import { existsSync, realpathSync } from 'node:fs';
import { delimiter, isAbsolute, join, relative, sep } from 'node:path';
import { cliIo } from './io.js';

/** What decides how to print a command a person can paste: how this process was started, and where. */
export interface InvocationFacts {
  /** The script node runs (process.argv[1]): bin/nodectl, a symlink to it, or dist/cli/main.js. */
  script: string | undefined;
  /** The folder the person is in. */
  cwd: string;
  /** PATH, split by the platform's delimiter. */
  path: string;
  /** The real path of a file, undefined when there is none. */
  realpath: (file: string) => string | undefined;
}

function realpathOrUndefined(file: string): string | undefined {
  try {
    return existsSync(file) ? realpathSync(file) : undefined;
  } catch {
    return undefined;
  }
}

/** The first `nodectl` on PATH, as its real path. */
function nodectlOnPath(facts: InvocationFacts): string | undefined {
  for (const dir of facts.path.split(delimiter)) {
    if (dir === '') continue;
    const found = facts.realpath(join(dir, 'nodectl'));
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * The words that run this very nodectl, for a banner or a hint to print: `nodectl` when the
 * `nodectl` on PATH is this binary (an installed package), else `node <path to bin/nodectl>`,
 * relative to the working folder when it is inside it (a clone: `node bin/nodectl`).
 */
export function nodectlCommand(facts: InvocationFacts): string {
  const script = facts.script === undefined ? undefined : facts.realpath(facts.script);
  if (script === undefined) return 'nodectl';
  if (nodectlOnPath(facts) === script) return 'nodectl';
  const rel = relative(facts.cwd, script);
  const shown = rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel.split(sep).join('/') : script;
  return `node ${/\s/.test(shown) ? JSON.stringify(shown) : shown}`;
}

/** nodectlCommand for this process. */
export function currentNodectlCommand(): string {
  const io = cliIo();
  return nodectlCommand({
    script: io.script,
    cwd: io.cwd,
    path: io.env.PATH ?? '',
    realpath: realpathOrUndefined,
  });
}
