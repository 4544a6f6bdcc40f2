import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, injectJson, type TestApp } from '../../helpers/app.js';
import { makeTempDir, PROJECT_ROOT } from '../../helpers/paths.js';

/**
 * Issue 37 item 6: the OpenAPI document the app serves, linted by Redocly's CLI with its
 * recommended rules, as a client generator's user would. Errors (duplicate operationIds, an
 * operation without security, no servers) fail; warnings are Redocly's taste and are allowed.
 */
type Json = Record<string, any>;
const REDOCLY = join(PROJECT_ROOT, 'node_modules', '.bin', 'redocly');
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

let t: TestApp;
let temp: { dir: string; cleanup: () => void };
let document: Json;

beforeAll(async () => {
  t = await buildTestApp();
  temp = makeTempDir('nodectl-redocly-');
  document = (await injectJson(t.app, { method: 'GET', url: '/v1/openapi.json' })).json;
}, 60_000);
afterAll(async () => {
  await t?.close();
  temp?.cleanup();
});

const operations = () =>
  Object.entries(document.paths as Record<string, Json>).flatMap(([path, item]) =>
    METHODS.filter((method) => item[method]).map((method) => ({ route: `${method} ${path}`, ...item[method] })),
  );

describe('the served OpenAPI document', () => {
  it('passes `redocly lint` (recommended rules) without an error', async () => {
    const file = join(temp.dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(document));
    const run = await execa(REDOCLY, ['lint', file, '--format', 'json', '--extends', 'recommended'], {
      cwd: temp.dir,
      reject: false,
      // No telemetry or update check: the test must not reach the network.
      env: { REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', CI: 'true' },
    });
    const report = JSON.parse(run.stdout) as {
      totals: { errors: number };
      problems: Array<{ ruleId: string; severity: string; message: string; location: Array<{ pointer: string }> }>;
    };
    const errors = report.problems
      .filter((p) => p.severity === 'error')
      .map((p) => `${p.ruleId}: ${p.message} (${p.location[0]?.pointer ?? ''})`);
    expect(errors).toEqual([]);
    expect(report.totals.errors).toBe(0);
    expect(run.exitCode, run.stderr).toBe(0);
  });

  it('documents the probes, names servers, and gives every operation a unique operationId and its security', () => {
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/healthz', '/readyz', '/metrics']));
    expect(document.servers?.length).toBeGreaterThan(0);
    const ids = operations().map((o) => o.operationId as string);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    expect(
      operations()
        .filter((o) => !Array.isArray(o.security))
        .map((o) => o.route),
    ).toEqual([]);
    expect(document.paths['/healthz'].get.security).toEqual([]);
    expect(document.paths['/metrics'].get.responses['200'].content).toHaveProperty('text/plain');
  });
});
