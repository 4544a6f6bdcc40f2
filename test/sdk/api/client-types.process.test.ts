import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDir, PROJECT_ROOT } from '../../helpers/paths.js';

/**
 * @nodectl/cli/api as a package user sees it: a program importing '@nodectl/cli/api' (the package's
 * "exports", dist/sdk/api/index.d.ts; `npm run build` first) is compiled by tsc. Requests and answers
 * carry the types of the routes' zod schemas: the right calls compile, and each wrong one marked
 * @ts-expect-error must be an error (tsc fails on a directive with nothing to expect, so a type
 * that went loose, e.g. to any, fails this test).
 */
const CONSUMER = `
import { ApiError, collectPages, createApiClient, type Job, type PublishResult } from '@nodectl/cli/api';

const api = createApiClient({ url: 'http://127.0.0.1:8787', credential: { apiKey: 'nk_live_x' } });

export async function rightCalls(): Promise<string> {
  const published: PublishResult = await api.publish.publish('web_1', { force: true, dryRun: false });
  const label: string = published.versionLabel;
  const previous: string | null = published.previousVersion;
  const versions = await collectPages((cursor) => api.publish.versions('web_1', { limit: 100, cursor }));
  const live: boolean | undefined = versions[0]?.live;
  const dead: Job[] = (await api.jobs.list('web_1', { state: 'dead', kind: 'content.ingest' })).items;
  const hits = await api.knowledge.search('web_1', { q: 'coffee', kind: 'entity' });
  const days: number = (await api.analytics.read('web_1', { from: '2026-03-01' })).days.length;
  const created = await api.websites.create('org_1', { domain: 'example.com', name: 'Example' });
  const renamed: string | null = (await api.websites.update('web_1', { brand: null, defaultLanguage: 'fr' })).brand;
  await api.websites.delete('web_1', { confirm: 'example.com' });
  const status: 'active' | 'suspended' | 'revoked' = (await api.connectors.suspend('conn_1')).status;
  const disabled: boolean = (await api.webhooks.update('web_1', 'whk_1', { enabled: false })).enabled;
  const failed = (await api.webhooks.deliveries('web_1', 'whk_1', { state: 'failed', limit: 10 })).items.map((d) => d.lastStatus);
  try {
    await api.publish.rollback('web_1', { version: published.versionUlid });
  } catch (error) {
    if (error instanceof ApiError) return \`\${error.code} \${error.status} \${error.requestId} \${JSON.stringify(error.details)}\`;
  }
  return [label, previous, live, dead.length, hits.next_cursor, days, created.verification.state, renamed, status, disabled, failed.length].join(' ');
}

export async function wrongCalls(): Promise<void> {
  // @ts-expect-error version is a string (RollbackRequestSchema)
  await api.publish.rollback('web_1', { version: 1 });
  // @ts-expect-error the publish body is strict: no target field (PublishRequestSchema)
  await api.publish.publish('web_1', { target: 's3' });
  // @ts-expect-error the answer has no such field (PublishResultSchema)
  void (await api.publish.publish('web_1')).versionNumber;
  // @ts-expect-error state is one of queued, running, succeeded, dead (JobsQuerySchema)
  await api.jobs.list('web_1', { state: 'failed' });
  // @ts-expect-error a search needs q
  await api.knowledge.search('web_1', { kind: 'entity' });
  // @ts-expect-error a website needs a name (CreateWebsiteBodySchema)
  await api.websites.create('org_1', { domain: 'example.com' });
  // @ts-expect-error the domain never changes (UpdateWebsiteBodySchema)
  await api.websites.update('web_1', { domain: 'example.org' });
  // @ts-expect-error a delete names the domain again (DeleteWebsiteBodySchema)
  await api.websites.delete('web_1', {});
  // @ts-expect-error enabled is a boolean (UpdateSubscriptionSchema)
  await api.webhooks.update('web_1', 'whk_1', { enabled: 'no' });
  // @ts-expect-error a delivery is pending, succeeded or failed (DeliveryListQuerySchema)
  await api.webhooks.deliveries('web_1', 'whk_1', { state: 'dead' });
  // @ts-expect-error retries is a count
  createApiClient({ url: 'http://127.0.0.1:8787', retries: 'twice' });
}
`;

const temp = makeTempDir('nodectl-api-types-');
afterAll(() => temp.cleanup());

describe('@nodectl/cli/api types', () => {
  it('come from the route schemas: right calls compile, wrong ones are type errors', async () => {
    mkdirSync(join(temp.dir, 'node_modules', '@nodectl'), { recursive: true });
    symlinkSync(PROJECT_ROOT, join(temp.dir, 'node_modules', '@nodectl', 'cli'), 'dir');
    writeFileSync(join(temp.dir, 'consumer.ts'), CONSUMER);
    writeFileSync(
      join(temp.dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: [],
        },
        files: ['consumer.ts'],
      }),
    );
    const tsc = await execa(
      'node',
      [join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(temp.dir, 'tsconfig.json')],
      { reject: false },
    );
    expect(tsc.exitCode, `${tsc.stdout}\n${tsc.stderr}`).toBe(0);
  }, 60_000);
});
