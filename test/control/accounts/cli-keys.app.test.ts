import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runNodectlInProcess } from '../../helpers/cli-in-process.js';
import { makeTempDir } from '../../helpers/paths.js';

describe('nodectl admin keys', () => {
  const temp = makeTempDir();
  afterAll(temp.cleanup);

  it('rotate makes a new signing key and retires the previous one; list shows both with their state; key files are mode 0600', async () => {
    const first = await runNodectlInProcess(['--json', 'admin', 'keys', 'rotate'], { dataDir: temp.dir });
    expect(first.exitCode, first.stderr).toBe(0);
    const a = first.json<{ kid: string; alg: string; retired: string[]; removed: string[] }>();
    expect(a).toMatchObject({ alg: 'EdDSA', retired: [], removed: [] });
    const second = await runNodectlInProcess(['--json', 'admin', 'keys', 'rotate'], { dataDir: temp.dir });
    const b = second.json<{ kid: string; retired: string[] }>();
    expect(b.retired).toEqual([a.kid]);

    const list = await runNodectlInProcess(['--json', 'admin', 'keys', 'list'], { dataDir: temp.dir });
    expect(list.exitCode, list.stderr).toBe(0);
    expect(list.json<Array<{ kid: string; state: string }>>().map((k) => [k.kid, k.state])).toEqual([
      [a.kid, 'retired'],
      [b.kid, 'active'],
    ]);
    const dir = join(temp.dir, 'keys', 'signing');
    for (const file of readdirSync(dir)) expect(statSync(join(dir, file)).mode & 0o777).toBe(0o600);

    const human = await runNodectlInProcess(['admin', 'keys', 'list'], { dataDir: temp.dir });
    expect(human.stdout).toMatch(/^KID\s+ALG\s+STATE\s+CREATED\s+RETIRED/);
    expect(human.stdout).not.toContain('PRIVATE KEY');
  });
});
