import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../helpers/paths.js';

/**
 * On Node 20 the AWS SDK warns, once per process, that its releases from January 2027 on need
 * Node 22. nodectl states its own Node policy, so creating the S3 target turns that warning off
 * with the SDK's switch, unless the user set the switch. Each run is a fresh process: the SDK
 * remembers in a module that it warned. (`npm run build` first.)
 */
const SCRIPT = `
const { createS3Target } = await import(${JSON.stringify(join(PROJECT_ROOT, 'dist/output/publish/targets/s3.js'))});
await createS3Target({ bucket: 'b', endpoint: 'http://127.0.0.1:9', forcePathStyle: true, accessKeyId: 'a', secretAccessKey: 'b' });
console.log('created');
`;
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

async function createTarget(env: Record<string, string> = {}) {
  const run = await execa('node', ['--input-type=module', '-e', SCRIPT], { reject: false, env, extendEnv: true });
  expect(run.exitCode, run.stderr).toBe(0);
  expect(run.stdout).toBe('created');
  return run.stderr;
}

describe("the AWS SDK's Node version warning", () => {
  it('is not printed when nodectl creates an S3 target', async () => {
    expect(await createTarget()).not.toMatch(/NodeVersionSupportWarning/);
  });

  it.runIf(NODE_MAJOR < 22)('is printed on Node 20 when the user turns the switch off', async () => {
    expect(await createTarget({ AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'false' })).toMatch(
      /NodeVersionSupportWarning/,
    );
  });
});
