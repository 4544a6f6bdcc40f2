import { execa } from 'execa';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDir, NODECTL_BIN, PROJECT_ROOT } from '../helpers/paths.js';

/**
 * docs/nodectl.service passes `systemd-analyze verify`. The unit's ExecStart names the installed
 * binary (/usr/local/bin/nodectl), which verify requires to exist, so the checked copy points at
 * the checkout's bin/nodectl. systemd-analyze comes from Debian's systemd package, which
 * scripts/ensure-test-tools.sh installs when it is missing (`npm test` runs it first).
 */
const UNIT = join(PROJECT_ROOT, 'docs', 'nodectl.service');
const temp = makeTempDir('nodectl-unit-');
afterAll(() => temp.cleanup());

describe('docs/nodectl.service', () => {
  it('runs nodectl serve as its own user on the state directory, restarts on failure, and is hardened', () => {
    const unit = readFileSync(UNIT, 'utf8');
    for (const line of [
      'ExecStart=/usr/local/bin/nodectl serve',
      'User=nodectl',
      'StateDirectory=nodectl',
      'Environment=NODECTL_DATA_DIR=/var/lib/nodectl',
      'Restart=on-failure',
      'NoNewPrivileges=yes',
      'ProtectSystem=strict',
      'UMask=0077',
    ])
      expect(unit.split('\n')).toContain(line);
  });

  it('passes systemd-analyze verify', async () => {
    const copy = join(temp.dir, 'nodectl.service');
    writeFileSync(
      copy,
      readFileSync(UNIT, 'utf8').replace('ExecStart=/usr/local/bin/nodectl', `ExecStart=${NODECTL_BIN}`),
    );
    const result = await execa('systemd-analyze', ['verify', copy], { reject: false });
    expect({ exitCode: result.exitCode, stderr: result.stderr }).toEqual({ exitCode: 0, stderr: '' });
  });
});
