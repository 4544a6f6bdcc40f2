import { connect } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { PROJECT_ROOT } from '../helpers/paths.js';

const packageVersion = (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string })
  .version;
let t: TestApp & { url?: string };

beforeAll(async () => {
  t = await buildTestApp({ listen: true });
});
afterAll(async () => t?.close());

/** Sends raw bytes and resolves with the whole answer the daemon writes before closing. */
function rawExchange(url: string, request: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(request));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

describe('every answer carries the API version (X-Api-Version = info.version of the OpenAPI document = package.json)', () => {
  it('on a success, on a routed error and on an unknown route', async () => {
    for (const path of ['/v1/openapi.json', '/v1/websites/nope', '/v1/nothing-here', '/healthz']) {
      const res = await fetch(t.url + path);
      expect(res.headers.get('x-api-version'), path).toBe(packageVersion);
    }
    const document = (await (await fetch(t.url + '/v1/openapi.json')).json()) as { info: { version: string } };
    expect(document.info.version).toBe(packageVersion);
  });

  it('on an answer written straight on the socket (431: headers too large)', async () => {
    const answer = await rawExchange(
      t.url!,
      `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(answer).toContain(`X-Api-Version: ${packageVersion}`);
  });
});
