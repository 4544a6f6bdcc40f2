import { afterEach, describe, expect, it } from 'vitest';
import { runNodectl } from '../helpers/cli.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { createTestDatabase } from '../helpers/postgres.js';

/** `nodectl serve` and controlStore (issue 41): which store it says holds what at start, and a store it cannot use. */
describe('nodectl serve with a PostgreSQL control store', () => {
  let daemon: TestDaemon | undefined;
  afterEach(async () => {
    await daemon?.stop();
    daemon = undefined;
  });

  it('migrates the store, logs once which store holds what, and stops cleanly', async () => {
    const url = new URL(await createTestDatabase());
    url.password = 'not-a-real-secret'; // trust authentication ignores it; the log must not show it
    daemon = await startTestDaemon({ env: { NODECTL_CONTROL_STORE: url.toString(), NODECTL_LOG_LEVEL: 'info' } });
    await daemon.untilOutput('control store: every control table in PostgreSQL');
    const lines = daemon
      .output()
      .split('\n')
      .filter((line) => line.includes('"control store:'));
    expect(lines).toHaveLength(1);
    const logged = JSON.parse(lines[0]!) as { controlStore: string; dataDir: string };
    expect(logged.controlStore).toBe(url.toString().replace('not-a-real-secret', '********'));
    expect(logged.dataDir).toBe(daemon.dataDir);
    expect(daemon.output()).not.toContain('not-a-real-secret');
    expect(await daemon.stop()).toBe(0);
    daemon = undefined;
  });

  it('says control.sqlite holds it all with the default', async () => {
    daemon = await startTestDaemon({ env: { NODECTL_LOG_LEVEL: 'info' } });
    await daemon.untilOutput('"msg":"control store: control.sqlite"');
    const line = daemon
      .output()
      .split('\n')
      .find((l) => l.includes('"control store:'));
    const logged = JSON.parse(line!) as { controlStore: string };
    expect(logged.controlStore).toBe(`${daemon.dataDir}/control.sqlite`);
  });

  it('refuses to start on a store it cannot use, saying which setting to check', async () => {
    const url = new URL(await createTestDatabase());
    url.pathname = '/no_such_database';
    const run = await runNodectl(['serve', '--port', '0'], { env: { NODECTL_CONTROL_STORE: url.toString() } });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(
      /Cannot use the control store postgres:\/\/.*no_such_database.*Check controlStore \(NODECTL_CONTROL_STORE\)/s,
    );
  });
});
