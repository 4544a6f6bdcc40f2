import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/paths.js';

const manifest = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
  exports: Record<string, string>;
};

describe('the package\'s "exports" (npm run build first)', () => {
  it('every entry names a built module (regression: "." named dist/index.js, which the build never made)', () => {
    const missing = Object.entries(manifest.exports).filter(([, file]) => !existsSync(join(PROJECT_ROOT, file)));
    expect(missing).toEqual([]);
  });

  it("import('@nodectl/cli') gives the connector client, as import('@nodectl/cli/client') does", async () => {
    const root = await import('@nodectl/cli');
    const client = await import('@nodectl/cli/client');
    expect(typeof root.signRequest).toBe('function');
    expect(root.signRequest).toBe(client.signRequest);
  });

  it("import('@nodectl/cli/api') gives the management API client", async () => {
    const api = await import('@nodectl/cli/api');
    expect(typeof api.createApiClient).toBe('function');
  });
});
