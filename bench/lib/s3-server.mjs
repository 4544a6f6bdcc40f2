// Runs s3rver in its own process, as a real S3 endpoint is: the publisher's timings then do not
// include the server's own work on the publisher's event loop. Prints `{"port": N}` on stdout.
// Usage (from a bench): const s3 = await startS3Server(dir); ... await s3.stop();
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

if (process.argv[2] === '--child') {
  const { default: S3rver } = await import('s3rver');
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: process.argv[3],
    configureBuckets: [{ name: 'nodes', configs: [] }],
  });
  const { port } = await server.run();
  process.send({ port });
  process.on('message', async (m) => {
    if (m === 'stop') {
      await server.close();
      process.exit(0);
    }
  });
}

/** Starts s3rver (bucket `nodes`) in a child process; resolves with its endpoint. */
export function startS3Server(directory) {
  const child = fork(fileURLToPath(import.meta.url), ['--child', directory], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`s3rver exited with ${code} before listening`)));
    child.once('message', ({ port }) => {
      child.removeAllListeners('exit');
      resolve({
        endpoint: `http://127.0.0.1:${port}`,
        stop: () =>
          new Promise((done) => {
            child.once('exit', () => done());
            child.send('stop');
          }),
      });
    });
  });
}
