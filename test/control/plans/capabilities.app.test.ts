import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileWebsite } from '../../../src/compiler/website.js';
import { createDeleteHarness, WEBSITE_ID, type DeleteHarness } from '../../output/publish/deletes-support.js';
import { pageItem } from '../../ingest/endpoints/support.js';
import { makeTempDir } from '../../helpers/paths.js';

/**
 * Capabilities gate files where they are made (docs/contract.md#plans): a served website's
 * compile reads its organization's plan from control.sqlite, so changing the plan (nodectl admin
 * org set-plan) changes what the next compile emits.
 */
let h: DeleteHarness;
const out = makeTempDir('nodectl-capabilities-');

beforeAll(async () => {
  h = await createDeleteHarness();
  await h.ingest([pageItem('p:1'), pageItem('p:2')]);
  await h.runJobs();
}, 60_000);
afterAll(async () => {
  await h?.close();
  out.cleanup();
});

async function compileOn(plan: 'free' | 'pro' | 'business') {
  h.services.controlDb.prepare('UPDATE organizations SET plan = ? WHERE id = ?').run(plan, 'org_1');
  const dir = join(out.dir, plan);
  await compileWebsite(h.dataDir, WEBSITE_ID, dir, { buildTime: '2026-03-02T10:00:00Z' });
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { capabilities: string[] };
  const has = (file: string) => existsSync(join(dir, file));
  return {
    capabilities: manifest.capabilities,
    trust: has('trust.json'),
    openapi: has('openapi.json'),
    embeddings: has('embeddings-manifest.json'),
    mcp: JSON.parse(readFileSync(join(dir, 'mcp.json'), 'utf8')).available,
  };
}

describe("the compile reads the plan of the website's organization", () => {
  it('free: cap.core only; no trust.json, openapi.json or embeddings-manifest.json; mcp.json says unavailable', async () => {
    expect(await compileOn('free')).toEqual({
      capabilities: ['cap.core'],
      trust: false,
      openapi: false,
      embeddings: false,
      mcp: false,
    });
  });

  it('pro: cap.advanced adds trust.json and openapi.json; MCP available; no embeddings manifest', async () => {
    expect(await compileOn('pro')).toEqual({
      capabilities: ['cap.advanced', 'cap.core', 'cap.mcp', 'cap.webhooks'],
      trust: true,
      openapi: true,
      embeddings: false,
      mcp: true,
    });
  });

  it('business: cap.embeddings adds embeddings-manifest.json', async () => {
    expect(await compileOn('business')).toEqual({
      capabilities: ['cap.advanced', 'cap.core', 'cap.embeddings', 'cap.mcp', 'cap.webhooks'],
      trust: true,
      openapi: true,
      embeddings: true,
      mcp: true,
    });
  });
});
