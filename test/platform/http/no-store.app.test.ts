import { afterEach, describe, expect, it } from 'vitest';
import { seedWebsite } from '../../helpers/app.js';
import { bearer, openAuthApp, PASSWORD, registerAndLogin, type AuthApp } from '../../control/accounts/http-support.js';

let a: AuthApp | undefined;
afterEach(async () => {
  await a?.close();
  a = undefined;
});

const cacheControl = (answer: { headers: Record<string, unknown> }) => answer.headers['cache-control'];

describe('Cache-Control: no-store on token answers and on every answer to a request with credentials (issue 36, F9)', () => {
  it('login, refresh and a refused login under /v1/auth/* are no-store', async () => {
    a = await openAuthApp();
    const user = await registerAndLogin(a, 'ada@example.com');
    const login = await a.post('/v1/auth/login', { email: user.email, password: PASSWORD });
    expect(login.status).toBe(200);
    expect(cacheControl(login)).toBe('no-store');
    const refresh = await a.post('/v1/auth/refresh', { refreshToken: login.json.data.refreshToken });
    expect(refresh.status).toBe(200);
    expect(cacheControl(refresh)).toBe('no-store');
    const refused = await a.post('/v1/auth/login', { email: user.email, password: 'wrong password here' });
    expect(refused.status).toBe(401);
    expect(cacheControl(refused)).toBe('no-store');
  });

  it('an answer to a request with an access token or an API key is no-store; a public one is not', async () => {
    a = await openAuthApp();
    const user = await registerAndLogin(a, 'ada@example.com');
    const me = await a.get('/v1/auth/me', bearer(user.accessToken));
    expect(me.status).toBe(200);
    expect(cacheControl(me)).toBe('no-store');
    const site = await seedWebsite(a.services);
    const website = await a.get(`/v1/websites/${site.websiteId}`, bearer(site.apiKey));
    expect(website.status).toBe(200);
    expect(cacheControl(website)).toBe('no-store');
    const denied = await a.get(`/v1/websites/${site.websiteId}`, bearer('nk_live_not-a-key'));
    expect(denied.status).toBe(401);
    expect(cacheControl(denied)).toBe('no-store');
    expect(cacheControl(await a.get('/healthz'))).toBeUndefined();
    expect(cacheControl(await a.get('/.well-known/jwks.json'))).toBe('public, max-age=60');
  });
});
