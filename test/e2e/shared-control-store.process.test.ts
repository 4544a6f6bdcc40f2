import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callDaemon, freePort, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { makeTempDir } from '../helpers/paths.js';
import { createTestDatabase } from '../helpers/postgres.js';

/**
 * Two `nodectl serve` on one PostgreSQL control store (issue 41, docs/scaling.md): each with a
 * data directory of its own, the same keys/ folder and the same public base URL. An account made through one signs in
 * through the other, whose answers show the same organization; a setting changed through one is
 * what the other reads next.
 */
let a: TestDaemon;
let b: TestDaemon;
const bDir = makeTempDir('nodectl-daemon-b-');
beforeAll(async () => {
  // One public address, as behind a load balancer: it is the access tokens' issuer.
  const env = { NODECTL_CONTROL_STORE: await createTestDatabase(), NODECTL_PUBLIC_BASE_URL: 'http://127.0.0.1:8080' };
  a = await startTestDaemon({ env, port: await freePort() });
  cpSync(join(a.dataDir, 'keys'), join(bDir.dir, 'keys'), { recursive: true });
  b = await startTestDaemon({ env, port: await freePort(), dataDir: bDir.dir });
}, 120_000);
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  bDir.cleanup();
});

describe('two daemons sharing a PostgreSQL control store', () => {
  it('an account registered on one signs in on the other; both answer the same organization, renamed through either', async () => {
    const email = 'grace@example.com';
    const password = 'a long shared-store password';
    const registered = await callDaemon(a, 'POST', '/v1/auth/register', { email, password, orgName: 'Compilers' });
    expect(registered.status, JSON.stringify(registered.json)).toBe(201);

    const login = await callDaemon(b, 'POST', '/v1/auth/login', { email, password });
    expect(login.status, JSON.stringify(login.json)).toBe(200);
    const token: string = login.json.data.accessToken;
    const onA = await callDaemon(a, 'GET', '/v1/organizations', undefined, token);
    const onB = await callDaemon(b, 'GET', '/v1/organizations', undefined, token);
    expect(onA.status).toBe(200);
    expect(onB.json.data).toEqual(onA.json.data);
    expect(onA.json.data.items).toEqual([expect.objectContaining({ name: 'Compilers' })]);

    const id: string = onA.json.data.items[0].id;
    const renamed = await callDaemon(b, 'PATCH', `/v1/organizations/${id}`, { name: 'Compilers & Co' }, token);
    expect(renamed.status, JSON.stringify(renamed.json)).toBe(200);
    expect((await callDaemon(a, 'GET', `/v1/organizations/${id}`, undefined, token)).json.data.name).toBe(
      'Compilers & Co',
    );
  });
});
