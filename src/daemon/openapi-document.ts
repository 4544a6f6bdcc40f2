import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServices } from './create-services.js';
import { resolveConfig } from '../platform/config/index.js';
import { buildApp } from './app.js';

/**
 * The OpenAPI document of the /v1 API, as `nodectl serve` would serve it, built without a data
 * directory of the caller's: the app is assembled on a throwaway one and never listens. For
 * scripts/api-reference.mjs and the CHANGELOG check, which need the document without a daemon.
 */
export async function generateOpenApiDocument(): Promise<Record<string, unknown>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'nodectl-openapi-'));
  const services = createServices(resolveConfig({ flags: { dataDir }, env: {} }));
  try {
    const app = await buildApp(services);
    await app.ready();
    const document = app.swagger() as unknown as Record<string, unknown>;
    await app.close();
    return document;
  } finally {
    services.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
