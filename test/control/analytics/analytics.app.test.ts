import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { classifyAgent } from '../../../src/control/analytics/agents.js';
import { loadFixture } from '../../../src/compiler/index.js';
import { buildGraphFromItems } from '../../../src/ingest/graph/build-from-items.js';
import { analyticsAggregateJob } from '../../../src/control/analytics/aggregate-job.js';
import type { Job } from '../../../src/platform/jobs/queue.js';
import { graphDbPath } from '../../../src/platform/storage/data-dir.js';
import { createApiKey } from '../../../src/control/records/api-keys.js';
import { loadWebsiteInfo } from '../../../src/control/records/load-website.js';
import {
  buildTestApp,
  fakeClock,
  injectJson,
  injectSigned,
  seedWebsite,
  type SeededWebsite,
  type TestApp,
} from '../../helpers/app.js';
import { SHOP, SHOP_DOMAIN } from '../../output/publish/support.js';

describe('User-Agent classification', () => {
  it('puts each AI and search crawler in its bucket, Google AI fetchers before Googlebot, and anything else in other', () => {
    const cases: Array<[string | undefined, string]> = [
      [
        'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)',
        'gptbot',
      ],
      [
        'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot',
        'gptbot',
      ],
      ['Mozilla/5.0 (compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot)', 'gptbot'],
      [
        'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)',
        'claudebot',
      ],
      ['Claude-User/1.0', 'claudebot'],
      ['anthropic-ai', 'claudebot'],
      [
        'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; PerplexityBot/1.0; +https://perplexity.ai/perplexitybot)',
        'perplexitybot',
      ],
      ['Google-Extended', 'google_extended'],
      ['Mozilla/5.0 (compatible; Google-CloudVertexBot; +https://cloud.google.com)', 'google_extended'],
      ['CCBot/2.0 (https://commoncrawl.org/faq/)', 'ccbot'],
      [
        'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm) Chrome/116.0 Safari/537.36',
        'bingbot',
      ],
      ['Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', 'googlebot'],
      ['Googlebot-Image/1.0', 'googlebot'],
      [
        'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15',
        'other',
      ],
      ['curl/8.5.0', 'other'],
      ['notGPTBotics/1.0', 'other'],
      ['', 'other'],
      [undefined, 'other'],
    ];
    for (const [ua, agent] of cases) expect(classifyAgent(ua), String(ua)).toBe(agent);
  });
});

// In process through inject(), on a fake clock: reads are counted in the hour the clock says when served.
const clock = fakeClock(Date.parse('2026-03-02T10:00:00Z'));
let t: TestApp;
let site: SeededWebsite;
let viewerKey: string;

beforeAll(async () => {
  // The app's periodic flushes (the read counter's every 2 s) on a fake clock too: they run when a test moves it.
  vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
  t = await buildTestApp({ clock });
  site = await seedWebsite(t.services, SHOP_DOMAIN);
  viewerKey = createApiKey(t.services.controlDb, { organizationId: site.organizationId, role: 'viewer' }).key;
  const info = loadWebsiteInfo(t.services.controlDb, site.websiteId)!;
  buildGraphFromItems(loadFixture(SHOP).items, info, {
    receivedAt: '2026-03-02T09:00:00Z',
    file: graphDbPath(t.services.layout, site.websiteId),
  }).close();
}, 60_000);
afterAll(async () => {
  await t?.close();
  vi.useRealTimers();
});

const analytics = (query = '') =>
  injectJson(t.app, {
    method: 'GET',
    url: `/v1/websites/${site.websiteId}/analytics${query}`,
    headers: { authorization: `Bearer ${viewerKey}` },
  });
const read = (file: string, ua?: string, headers: Record<string, string> = {}) =>
  t.app.inject({
    method: 'GET',
    url: `/nodes/${SHOP_DOMAIN}/${file}`,
    headers: { ...(ua ? { 'user-agent': ua } : {}), ...headers },
  });
const aggregate = () =>
  analyticsAggregateJob.handler(
    {},
    {
      services: t.services,
      job: { id: 'job_test', kind: 'analytics.aggregate' } as Job,
      signal: new AbortController().signal,
    },
  );
const page = (id: string) => ({
  type: 'page',
  id,
  url: `https://${SHOP_DOMAIN}/${id}`,
  text: `Text of ${id}`,
  checksum: 'sha256:' + id.padStart(64, '0'),
});

describe('GET /v1/websites/:id/analytics', () => {
  it('counts reads by agent and file when served, items ingested and versions published, per UTC day, from the rollups analytics.aggregate makes', async () => {
    // Day 1: two items ingested, one version published, six reads (one a 304).
    const ingest = await injectSigned(t.app, '/v1/ingest/batch', {
      token: site.connectorToken,
      websiteId: site.websiteId,
      nowMs: clock.now(),
      body: { website_id: site.websiteId, items: [page('a'), page('b')] },
    });
    expect(ingest.json.data, ingest.body).toMatchObject({ accepted: 2 });
    const published = await injectJson(t.app, {
      method: 'POST',
      url: `/v1/websites/${site.websiteId}/publish`,
      headers: { authorization: `Bearer ${site.apiKey}` },
    });
    expect(published.status, published.body).toBe(200);
    const llms = await read('llms.txt', 'Mozilla/5.0 (compatible; GPTBot/1.2)');
    expect(llms.statusCode).toBe(200);
    expect((await read('llms.txt', 'GPTBot/1.2', { 'if-none-match': String(llms.headers.etag) })).statusCode).toBe(304);
    await read('facts.en.jsonl', 'ClaudeBot/1.0');
    await read('manifest.json', 'Googlebot/2.1');
    await read('llms.txt', 'curl/8.5.0');
    await read('llms.txt');
    expect((await read('nothing.json', 'GPTBot/1.2')).statusCode).toBe(404); // not a read
    // Day 2, late evening: three more reads.
    clock.set(Date.parse('2026-03-03T23:30:00Z'));
    await read('llms.txt', 'PerplexityBot/1.0');
    await read('entities.en.jsonl', 'CCBot/2.0');
    await read('llms-full.txt', 'bingbot/2.0');
    vi.advanceTimersByTime(2_000); // the read counter writes every 2 s

    // Nothing is answered before the rollup.
    const before = await analytics('?from=2026-03-02&to=2026-03-03');
    expect(before.json.data.days.map((d: { node_reads: number }) => d.node_reads)).toEqual([0, 0]);

    await aggregate();
    await aggregate(); // a repeated run counts nothing twice
    const res = await analytics('?from=2026-03-01&to=2026-03-04');
    expect(res.status, res.body).toBe(200);
    const zero = {
      gptbot: 0,
      claudebot: 0,
      perplexitybot: 0,
      google_extended: 0,
      ccbot: 0,
      bingbot: 0,
      googlebot: 0,
      other: 0,
    };
    expect(res.json.data).toEqual({
      website_id: site.websiteId,
      from: '2026-03-01',
      to: '2026-03-04',
      days: [
        { date: '2026-03-01', node_reads: 0, reads_by_agent: zero, items_ingested: 0, published_versions: 0 },
        {
          date: '2026-03-02',
          node_reads: 6,
          reads_by_agent: { ...zero, gptbot: 2, claudebot: 1, googlebot: 1, other: 2 },
          items_ingested: 2,
          published_versions: 1,
        },
        {
          date: '2026-03-03',
          node_reads: 3,
          reads_by_agent: { ...zero, perplexitybot: 1, ccbot: 1, bingbot: 1 },
          items_ingested: 0,
          published_versions: 0,
        },
        { date: '2026-03-04', node_reads: 0, reads_by_agent: zero, items_ingested: 0, published_versions: 0 },
      ],
      top_files: [
        { file: 'llms.txt', reads: 5 },
        { file: 'entities.en.jsonl', reads: 1 },
        { file: 'facts.en.jsonl', reads: 1 },
        { file: 'llms-full.txt', reads: 1 },
        { file: 'manifest.json', reads: 1 },
      ],
    });
  });

  it('defaults to the last 30 days up to today (UTC); keeps the daily rows when old hourly rows are pruned', async () => {
    const res = await analytics();
    const days = res.json.data.days as Array<{ date: string; node_reads: number }>;
    expect(days).toHaveLength(30);
    expect(days.at(-1)!.date).toBe('2026-03-03');
    expect(days[0]!.date).toBe('2026-02-02');
    expect(days.reduce((s, d) => s + d.node_reads, 0)).toBe(9);
    clock.set(Date.parse('2026-03-10T12:00:00Z'));
    await aggregate();
    expect(
      t.services.controlDb
        .prepare(`SELECT COUNT(*) FROM analytics_events WHERE website_id = ? AND length(period_start) = 20`)
        .pluck()
        .get(site.websiteId),
    ).toBe(0);
    const later = await analytics('?from=2026-03-02&to=2026-03-03');
    expect(later.json.data.days.map((d: { node_reads: number }) => d.node_reads)).toEqual([6, 3]);
    expect((await analytics('?from=2026-03-02')).json.data).toMatchObject({ from: '2026-03-02', to: '2026-03-10' });
  });

  it('a bad range is 422 validation.failed naming the field', async () => {
    for (const [query, field] of [
      ['?from=2026-03-05&to=2026-03-01', 'from'],
      ['?from=2026-02-30', 'from'],
      ['?to=yesterday', 'to'],
      ['?from=2024-01-01&to=2026-01-01', 'to'],
    ] as const) {
      const res = await analytics(query);
      expect(`${res.status} ${res.json.error?.code}`, query).toBe('422 validation.failed');
      expect(
        res.json.error.details.fields.map((f: { path: string }) => f.path),
        query,
      ).toContain(field);
    }
  });
});
