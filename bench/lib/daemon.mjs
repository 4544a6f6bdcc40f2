// Starts `nodectl serve` on a free loopback port for a benchmark and waits until /readyz answers.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/nodectl', import.meta.url));

/** `nodeArgs` go to node itself (BENCH_DAEMON_NODE_ARGS, e.g. --cpu-prof); `bin`, another build's launcher. Resolves { child, url }. */
export async function startBenchDaemon(dataDir, { nodeArgs = [], bin = BIN } = {}) {
  const child = spawn(
    'node',
    [...nodeArgs, bin, '--data-dir', dataDir, 'serve', '--host', '127.0.0.1', '--port', '0'],
    { env: { ...process.env, NODECTL_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  // A bench that dies (an error, or its output piped into a reader that went away) takes its
  // daemon with it: one left running would build its graph beside the next run's measurements.
  const stop = () => child.kill('SIGKILL');
  process.once('exit', stop);
  child.once('exit', () => process.off('exit', stop));
  let out = '';
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the daemon did not start within 30 s:\n' + out)), 30_000);
    child.stderr.on('data', (chunk) => {
      out += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(out);
      if (match) (clearTimeout(timer), resolve(match[1]));
    });
    child.on('exit', (code) => (clearTimeout(timer), reject(new Error(`serve exited ${code}: ${out}`))));
  });
  for (;;) {
    const res = await fetch(`${url}/readyz`).catch(() => undefined);
    if (res?.status === 200) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { child, url };
}
