import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_CSP } from '../../src/daemon/console-routes.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { PROJECT_ROOT } from '../helpers/paths.js';

/** The daemon serves the built console (dist/console, from `npm run build`) at /console/ (docs/console.md). */
const built = join(PROJECT_ROOT, 'dist', 'console');
const indexHtml = readFileSync(join(built, 'index.html'), 'utf8');
const scriptName = readdirSync(join(built, 'assets')).find((name) => name.endsWith('.js'))!;
const IMMUTABLE = 'public, max-age=31536000, immutable';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t?.close());

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers });

function expectConsoleHeaders(res: { headers: Record<string, unknown> }): void {
  expect(res.headers['content-security-policy']).toBe(CONSOLE_CSP);
  expect(res.headers['x-content-type-options']).toBe('nosniff');
  expect(res.headers['referrer-policy']).toBe('no-referrer');
}

describe('the web console at /console/', () => {
  it('answers index.html with no-cache and the strict CSP; /console redirects to it', async () => {
    const res = await get('/console/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.body).toBe(indexHtml);
    expectConsoleHeaders(res);
    expect(res.headers['content-security-policy']).toContain("script-src 'self';");
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");

    const bare = await get('/console?x=1');
    expect(bare.statusCode).toBe(302);
    expect(bare.headers.location).toBe('/console/');
  });

  it('the built index.html has no inline script or style and loads only files of its own origin', () => {
    expect(indexHtml).toContain(`src="/console/assets/${scriptName}"`);
    for (const tag of indexHtml.match(/<script\b[^>]*>/g) ?? []) expect(tag).toMatch(/\bsrc="\/console\/assets\//);
    expect(indexHtml).not.toMatch(/<style\b|\sstyle=|https?:\/\//);
  });

  it('serves a hashed file for a year, immutable, with the CSP', async () => {
    const res = await get(`/console/assets/${scriptName}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/javascript/);
    expect(res.headers['cache-control']).toBe(IMMUTABLE);
    expectConsoleHeaders(res);
    expect(res.body).toBe(readFileSync(join(built, 'assets', scriptName), 'utf8'));
  });

  it('keeps its own cache lifetimes on a request that carries a cookie (other answers with credentials are no-store)', async () => {
    const res = await get(`/console/assets/${scriptName}`, { cookie: 'other=1' });
    expect(res.headers['cache-control']).toBe(IMMUTABLE);
  });

  it('answers index.html for any other path under /console/ (the browser routes it)', async () => {
    for (const path of ['/console/organizations', '/console/organizations/org_1/websites', '/console/sign-in?next=x']) {
      const res = await get(path);
      expect(res.statusCode, path).toBe(200);
      expect(res.body, path).toBe(indexHtml);
      expect(res.headers['cache-control'], path).toBe('no-cache');
      expectConsoleHeaders(res);
    }
  });

  it('a missing hashed file is a 404 in the envelope, not index.html, and is not cached', async () => {
    const res = await get('/console/assets/index-NotThere1.js');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ ok: false, error: { code: 'route.not_found' } });
    expect(res.headers['cache-control']).toBe('no-cache');
    expectConsoleHeaders(res);
  });

  it('refuses a path that climbs out of the console folder', async () => {
    const res = await get('/console/assets/..%2f..%2fpackage.json');
    expect(res.statusCode).toBe(404);
    expect(res.body).not.toContain('@nodectl/cli');
  });

  it('is not in the OpenAPI document, and /v1 answers carry no console CSP', async () => {
    const res = await get('/v1/openapi.json');
    const document = res.json() as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths).filter((path) => path.startsWith('/console'))).toEqual([]);
    expect(Object.keys(document.paths).length).toBeGreaterThan(50);
    expect(res.headers['content-security-policy']).toBeUndefined();
  });
});
