import fastifyStatic from '@fastify/static';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { RoutePlugin } from '../platform/app/index.js';
import { PACKAGE_ROOT } from '../platform/config/index.js';
import { AppError } from '../platform/errors/index.js';

/** Where the daemon serves the web console (docs/console.md); outside /v1, so not in the OpenAPI document. */
export const CONSOLE_PREFIX = '/console/';
/** vite's hashed output: a name there never changes content, so browsers keep it a year. */
const ASSETS_PREFIX = `${CONSOLE_PREFIX}assets/`;

/**
 * Every console answer's policy: only the daemon's own scripts, styles and API (no inline script,
 * no eval, no CDN), never framed, forms posted only here, and no referrer leaves the console.
 */
export const CONSOLE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/** dist/console of this package (the checkout, or the installed package). */
export function consoleAssetsDir(): string {
  return fileURLToPath(new URL('dist/console/', PACKAGE_ROOT));
}

function consoleHeaders(request: FastifyRequest, reply: FastifyReply, done: () => void): void {
  reply.header('Content-Security-Policy', CONSOLE_CSP);
  reply.header('X-Content-Type-Options', 'nosniff');
  reply.header('Referrer-Policy', 'no-referrer');
  // index.html names the current hashed files: a browser asks again each time (an ETag makes it cheap).
  const immutable = request.url.startsWith(ASSETS_PREFIX);
  reply.header('Cache-Control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
  done();
}

/**
 * The web console (src/console, built into dist/console/ by `npm run build`): its files with
 * @fastify/static, listed once at start; any other path under /console/ answers index.html, whose
 * script routes in the browser, except under assets/, where a missing hashed file is a 404.
 */
export const consoleRoutes: RoutePlugin = async (app) => {
  const root = consoleAssetsDir();
  const built = existsSync(`${root}index.html`);
  app.addHook('onRequest', consoleHeaders);
  app.get('/console', { schema: { hide: true } }, (_request, reply) => reply.redirect(CONSOLE_PREFIX, 302));
  if (built) await app.register(fastifyStatic, { root, prefix: CONSOLE_PREFIX, wildcard: false, cacheControl: false });
  app.get(`${CONSOLE_PREFIX}*`, { schema: { hide: true } }, async (request, reply) => {
    if (!built)
      throw new AppError(
        'route.not_found',
        'The web console is not built in this installation: run `npm run build` in the checkout, then restart the daemon.',
      );
    const path = request.url.split('?')[0]!;
    if (path.startsWith(ASSETS_PREFIX)) {
      reply.header('Cache-Control', 'no-cache');
      throw new AppError(
        'route.not_found',
        `No console file ${path}: the console was rebuilt since this page loaded; reload it.`,
      );
    }
    return reply.sendFile('index.html');
  });
};
