import { mkdirSync, readdirSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestDaemon } from '../../helpers/daemon.js';
import { runNodectl } from '../../helpers/cli.js';
import { makeTempDir, NODECTL_BIN, PROJECT_ROOT } from '../../helpers/paths.js';
import { until } from '../../helpers/until.js';
import { SHOP } from './support.js';

// These run the built binary: `npm run build` first.
const temp = makeTempDir('nodectl-work-dirs-');
const BLOG = join(PROJECT_ROOT, 'fixtures', 'blog');
const children: ResultPromise[] = [];
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await Promise.allSettled(children);
  temp.cleanup();
});

/**
 * A `nodectl publish` of `fixture` paused at its upload step: its work folder is in use. (In an
 * object: the child is a promise of its end, which an async function's result would wait for.)
 */
async function pausedPublish(dataDir: string, fixture: string): Promise<{ child: ResultPromise }> {
  const child = execa('node', [NODECTL_BIN, '--data-dir', dataDir, 'publish', fixture], {
    reject: false,
    env: { NODECTL_FAULT_PAUSE_AT: 'upload' },
    buffer: false,
  });
  children.push(child);
  let seen = '';
  child.stderr!.on('data', (chunk: Buffer) => void (seen += chunk.toString()));
  await until(child.stderr!, 'data', () => seen.includes('paused at upload'), 'the publish to pause at upload');
  return { child };
}

const workDirs = (dataDir: string) =>
  readdirSync(join(dataDir, 'tmp'))
    .filter((name) => name.startsWith('publish-'))
    .sort();

describe('work folders of publishes that died', () => {
  it('bug F7: are removed when the daemon starts and when a CLI publish starts, not after 24 h; a running publish keeps its own', async () => {
    const dataDir = join(temp.dir, 'data');
    const { child: running } = await pausedPublish(dataDir, SHOP);
    const runningDirs = workDirs(dataDir);
    expect(runningDirs).toHaveLength(1);
    const { child: killed } = await pausedPublish(dataDir, BLOG);
    const killedDir = workDirs(dataDir).find((name) => !runningDirs.includes(name))!;
    killed.kill('SIGKILL');
    await killed;
    // Folders of an older nodectl name no process: removed once a day old, as before.
    const tmp = join(dataDir, 'tmp');
    mkdirSync(join(tmp, 'publish-Old123'));
    const dayAgo = new Date(Date.now() - 25 * 3600_000);
    utimesSync(join(tmp, 'publish-Old123'), dayAgo, dayAgo);
    mkdirSync(join(tmp, 'publish-New123'));
    expect(workDirs(dataDir)).toEqual([killedDir, ...runningDirs, 'publish-New123', 'publish-Old123'].sort());

    const daemon = await startTestDaemon({ dataDir });
    try {
      expect(workDirs(dataDir)).toEqual([...runningDirs, 'publish-New123'].sort());
    } finally {
      await daemon.stop();
    }

    running.kill('SIGKILL');
    await running;
    const publish = await runNodectl(['publish', BLOG], { dataDir });
    expect(publish.exitCode, publish.stderr).toBe(0);
    expect(workDirs(dataDir)).toEqual(['publish-New123']);
  }, 120_000);
});
