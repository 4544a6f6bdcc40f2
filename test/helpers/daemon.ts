import { createServer, type AddressInfo } from 'node:net';
import { execa, type ResultPromise } from 'execa';
import { request } from 'undici';
import { NODECTL_BIN, makeTempDir } from './paths.js';
import { until } from './until.js';

export interface TestDaemon {
  /** Its public base URL as it printed it (its loopback address unless publicBaseUrl is set). */
  url: string;
  /** Where it listens: url, or the loopback address of a port given in the options. */
  address: string;
  dataDir: string;
  /** Everything the daemon wrote to stderr so far (JSON logs and the banner). */
  output(): string;
  /** Resolves once the output holds `text` (a log line's message, say): waited for as it arrives, not polled. */
  untilOutput(text: string | RegExp, timeoutMs?: number): Promise<void>;
  /** Sends a signal and waits for the process to exit; returns its exit code. */
  stop(signal?: NodeJS.Signals): Promise<number>;
  process: ResultPromise;
}

export interface StartDaemonOptions {
  /** Use this data directory (default: a fresh temporary one, removed on stop). */
  dataDir?: string;
  env?: Record<string, string>;
  args?: string[];
  /** Start this launcher instead of the checkout's bin/nodectl (an installed package's, say). */
  bin?: string;
  /** Run it with this node binary (default: `node` on the PATH). */
  node?: string;
  /**
   * Set appBaseUrl to the daemon's own address with this path ('/console': mailed links open the
   * console). The port is then picked before the start, since the setting must name it.
   */
  appBasePath?: string;
  /** Listen on this port (a free one: freePort()) rather than one the OS picks. */
  port?: number;
}

/** A loopback port free now (the OS picks it; the daemon binds it right after). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Starts the real `nodectl serve` (the built binary) on an ephemeral loopback port and waits
 * until /readyz answers 200.
 */
export async function startTestDaemon(options: StartDaemonOptions = {}): Promise<TestDaemon> {
  const temp = options.dataDir ? undefined : makeTempDir('nodectl-daemon-');
  const dataDir = options.dataDir ?? temp!.dir;
  const port = options.port ?? (options.appBasePath === undefined ? 0 : await freePort());
  const appBaseUrl =
    options.appBasePath === undefined ? {} : { NODECTL_APP_BASE_URL: `http://127.0.0.1:${port}${options.appBasePath}` };
  const child = execa(
    options.node ?? 'node',
    [
      options.bin ?? NODECTL_BIN,
      '--data-dir',
      dataDir,
      'serve',
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      ...(options.args ?? []),
    ],
    {
      reject: false,
      // No warm start (about 1.5 s of a core per daemon, and the suite starts many) unless a test asks for it.
      env: {
        NODECTL_LOG_LEVEL: 'warn',
        NODECTL_JOB_POLL_MS: '50',
        NODECTL_EXTRACTION_WARM_UP_PAGES: '0',
        ...appBaseUrl,
        ...options.env,
      },
      buffer: false,
    },
  );
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`daemon did not start within 20 s:\n${output}`)), 20_000);
    const check = () => {
      const match = /listening on (http:\/\/[^\s]+)/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stderr?.on('data', check);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`daemon exited with ${code} before listening:\n${output}`));
    });
  });
  // The banner is printed once the daemon listens with its databases open: /readyz answers 200 from then on.
  // With a known port, ask it directly: url is the public base URL, which may be another address.
  const address = port === 0 ? url : `http://127.0.0.1:${port}`;
  const ready = await request(`${address}/readyz`);
  const readyBody = await ready.body.text();
  if (ready.statusCode !== 200)
    throw new Error(`the daemon listens but /readyz answered ${ready.statusCode}: ${readyBody}\n${output}`);
  const holds = (text: string | RegExp) => (typeof text === 'string' ? output.includes(text) : text.test(output));
  return {
    url,
    address,
    dataDir,
    process: child,
    output: () => output,
    untilOutput: (text, timeoutMs) =>
      until(
        [child.stderr!, child.stdout!],
        'data',
        () => holds(text),
        `daemon output ${String(text)}`,
        timeoutMs,
      ).catch((error: Error) => {
        throw new Error(`${error.message}; the daemon wrote:\n${output}`);
      }),
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal);
      const result = await child;
      temp?.cleanup();
      return result.exitCode ?? -1;
    },
  };
}

/** One JSON request to a daemon (a body, a bearer token when given); its status and parsed answer (none for a 204). */
export async function callDaemon(
  daemon: Pick<TestDaemon, 'address'>,
  method: string,
  path: string,
  body?: unknown,
  token?: string,
) {
  const res = await fetch(`${daemon.address}${path}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: (text === '' ? undefined : JSON.parse(text)) as any };
}
