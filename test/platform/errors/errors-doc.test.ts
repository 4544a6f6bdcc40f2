import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../../src/platform/errors/registry.js';
import { PROJECT_ROOT } from '../../helpers/paths.js';

/** docs/errors.md rows look like: | `code` | status | retryable | description | */
function documentedCodes(): Map<string, { status: number; retryable: boolean }> {
  const text = readFileSync(join(PROJECT_ROOT, 'docs', 'errors.md'), 'utf8');
  const rows = new Map<string, { status: number; retryable: boolean }>();
  for (const match of text.matchAll(/^\| `([a-z_.]+)` \| (\d{3}) \| (yes|no) \|/gm))
    rows.set(match[1]!, { status: Number(match[2]), retryable: match[3] === 'yes' });
  return rows;
}

describe('the error registry and docs/errors.md', () => {
  it('document exactly the same codes, statuses and retryable flags', () => {
    const documented = documentedCodes();
    const registered = new Map(
      Object.entries(ERROR_CODES).map(([code, info]) => [code, { status: info.status, retryable: info.retryable }]),
    );
    expect([...documented.keys()].sort()).toEqual([...registered.keys()].sort());
    for (const [code, info] of registered) expect(documented.get(code), code).toEqual(info);
  });

  it('use <group>.<name> codes and valid HTTP error statuses', () => {
    for (const [code, info] of Object.entries(ERROR_CODES)) {
      expect(code).toMatch(/^[a-z]+\.[a-z_]+$/);
      expect(info.status).toBeGreaterThanOrEqual(400);
      expect(info.status).toBeLessThan(600);
    }
  });
});
