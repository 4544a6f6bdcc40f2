import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { UsageError } from './errors.js';
import { cliIo } from './io.js';

/**
 * The project file `nodectl init` writes in a project's folder: which daemon and which website the
 * commands of this folder talk to. Never a secret: the API key and the connector token stay in the
 * environment (NODECTL_API_KEY, NODECTL_CONNECTOR_TOKEN) or the nodectl login session. push,
 * publish and jobs read it below their flags and the environment (NODECTL_URL, NODECTL_WEBSITE).
 */
export const PROJECT_FILE = 'nodectl.json';

const SECRET_FIELDS = ['apiKey', 'api_key', 'token', 'connectorToken', 'connector_token', 'secret', 'password'];

export const ProjectSchema = z.strictObject({
  $schema: z.string().optional(),
  url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL such as https://nodectl.example.com' }),
  website: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,128}$/, 'must be a website id such as web_01J... (nodectl websites list shows them)'),
  domain: z
    .string()
    .regex(
      /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i,
      'must be a domain name such as example.com',
    )
    .optional(),
});
export type Project = z.infer<typeof ProjectSchema>;

/** Checks a project, in the file or from init's flags; `where` names each field for the message. */
export function parseProject(raw: unknown, where: (field: string) => string): Project {
  if (raw !== null && typeof raw === 'object')
    for (const key of Object.keys(raw))
      if (SECRET_FIELDS.includes(key))
        throw new UsageError(
          `${where(key)}: a secret never goes in ${PROJECT_FILE} (it is meant to be committed); remove it and set NODECTL_API_KEY or NODECTL_CONNECTOR_TOKEN instead`,
        );
  const parsed = ProjectSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.map(String).join('.');
    const message =
      issue.code === 'unrecognized_keys'
        ? `unknown field(s) ${issue.keys.join(', ')}; a project holds url, website and domain`
        : issue.message;
    throw new UsageError(`${where(field)} ${message}`);
  }
  return parsed.data;
}

export function projectFilePath(cwd: string = cliIo().cwd): string {
  return resolve(join(cwd, PROJECT_FILE));
}

/** The project file of the current folder, checked; null when there is none. A bad one exits 2 naming the file and the field. */
export function readProjectFile(cwd: string = cliIo().cwd): Project | null {
  const file = projectFilePath(cwd);
  if (!existsSync(file)) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`${file} is not valid JSON: ${(error as Error).message}; fix it or run nodectl init --force`);
  }
  return parseProject(raw, (field) => `${file}: ${field || '(root)'}`);
}

/** The defaults the project gives a command: url and website below the flags and NODECTL_URL / NODECTL_WEBSITE. */
export interface ProjectDefaults {
  url?: string;
  website?: string;
  domain?: string;
}

/**
 * Fills in what the flags leave out: the environment first, then the project file. The URL is only
 * taken from the file when NODECTL_URL is unset (connectApi reads the environment itself).
 */
export function projectDefaults(
  flags: { url?: string; website?: string; domain?: string },
  env: NodeJS.ProcessEnv = cliIo().env,
  cwd: string = cliIo().cwd,
): ProjectDefaults {
  const project = readProjectFile(cwd);
  return {
    url: flags.url ?? (env.NODECTL_URL || undefined) ?? project?.url,
    website: flags.website ?? (env.NODECTL_WEBSITE || undefined) ?? project?.website,
    domain: flags.domain ?? project?.domain,
  };
}
