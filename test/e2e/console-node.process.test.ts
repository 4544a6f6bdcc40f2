import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { rollUpAnalytics } from '../../src/control/analytics/rollup.js';
import { createConnector } from '../../src/control/connectors/connectors.js';
import { createApiKey } from '../../src/control/records/api-keys.js';
import { createOrganization } from '../../src/control/records/organizations.js';
import { createUser } from '../../src/control/records/users.js';
import { createWebsite } from '../../src/control/records/websites.js';
import { openBrowser, type TestBrowser } from '../helpers/browser.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { withControlDb } from '../helpers/seed.js';
import {
  addWebhook,
  expectSoundPage,
  heading as headingOf,
  publishNextVersion,
  pushBlogFixture,
  rollBackTo,
  searchKnowledge,
  seeDelivery,
  startWebhookReceiver,
  watchIngestSucceed,
  websiteTab,
} from './console-steps.js';
import Database from 'better-sqlite3';
import { contentIngestJob } from '../../src/ingest/graph/content-ingest-job.js';
import { JobQueue } from '../../src/platform/jobs/queue.js';
import { dataDirLayout, graphDbPath } from '../../src/platform/storage/data-dir.js';

/**
 * The console's content pages in Chromium against a real daemon (docs/console.md): jobs of a push
 * made with the CLI, knowledge search and an entity, the node (preview, publish with progress,
 * rollback, takedown), analytics of reads made here, and webhooks to a receiver in this process.
 */
const EMAIL = 'owner@fieldnotes.example';
const PASSWORD = 'a long console password';
const DOMAIN = 'blog.fieldnotes.example';

let daemon: TestDaemon;
let browser: TestBrowser;
let page: Page;
let websiteId: string;
let connectorToken: string;
let apiKey: string;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
let receiverUrl: string;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  receiverUrl = receiver.url;
  // The receiver is on loopback, which webhook deliveries may reach only when allowed.
  daemon = await startTestDaemon({ env: { NODECTL_FETCH_ALLOW_PRIVATE_ADDRESSES: 'true' } });
  await withControlDb(daemon.dataDir, async (db, masterKey) => {
    await createUser(db, { email: EMAIL, password: PASSWORD });
    const org = createOrganization(db, { name: 'Field Notes', ownerEmail: EMAIL, plan: 'pro' });
    websiteId = createWebsite(db, {
      organizationId: org.id,
      domain: DOMAIN,
      name: 'Field Notes',
      verifiedMethod: 'dns_txt',
    }).id;
    apiKey = createApiKey(db, { organizationId: org.id, role: 'viewer' }).key;
    connectorToken = createConnector(db, masterKey, {
      websiteId,
      connectorType: 'files',
      sourceTypes: ['page', 'post', 'profile', 'collection'] as never,
    }).token;
  });
  browser = await openBrowser();
  page = browser.page;
}, 60_000);

// A failure under load is read from what the page said and what the daemon logged at that moment.
afterEach(async ({ task }) => {
  if (task.result?.state !== 'fail') return;
  const said = await page
    ?.getByRole('status')
    .allTextContents()
    .catch(() => []);
  const alerts = await page
    ?.getByRole('alert')
    .allTextContents()
    .catch(() => []);
  console.error(`page status: ${JSON.stringify(said)}\npage alerts: ${JSON.stringify(alerts)}`);
  console.error(`daemon log (last 6,000 characters):\n${daemon?.output().slice(-6000)}`);
});

afterAll(async () => {
  await browser?.close();
  await daemon?.stop();
  await receiver?.close();
});

const heading = (name: string | RegExp) => headingOf(page, name);
const tab = (name: string) => websiteTab(page, name);
/** Every page: no serious accessibility violation, no CSP fault, no sideways scroll at 360 px. */
const checkPage = () => expectSoundPage(page, browser);

/** A node file read as a crawler reads it (the User-Agent tells the agent apart). */
async function readNodeFile(file: string, userAgent: string): Promise<number> {
  const res = await fetch(`${daemon.url}/nodes/${DOMAIN}/${file}`, { headers: { 'user-agent': userAgent } });
  await res.arrayBuffer();
  return res.status;
}

describe('the content pages of the console in Chromium', () => {
  it('watches the ingest job of a push finish on the jobs page', async () => {
    await page.goto(`${daemon.url}/console/websites/${websiteId}/jobs`);
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading('Ingest and jobs').waitFor();
    await page.getByText('No jobs yet.').waitFor();
    await checkPage();

    await pushBlogFixture(daemon, websiteId, DOMAIN, connectorToken);
    await watchIngestSucceed(page);
    await checkPage();
  });

  it('lists an item the ingest job refused under the job, with its id, code and what to fix', async () => {
    // Push checks every item, so a body the job refuses is one stored before the schema changed
    // (an upgrade): written here into the website's graph file, then its job queued, as push does.
    const graph = new Database(graphDbPath(dataDirLayout(daemon.dataDir), websiteId));
    try {
      graph.pragma('busy_timeout = 10000');
      graph
        .prepare(
          `INSERT INTO raw_items (raw_content_id, item_type, item_id, checksum, url, body, state, received_at)
           VALUES ('raw_console_refused', 'post', 'old-format-post', ?, ?, ?, 'pending', ?)`,
        )
        .run(
          'sha256:' + 'e'.repeat(64),
          `https://${DOMAIN}/old-format-post`,
          JSON.stringify({ type: 'post', id: 'old-format-post', url: `https://${DOMAIN}/old-format-post` }),
          new Date().toISOString(),
        );
    } finally {
      graph.close();
    }
    const jobId = await withControlDb(
      daemon.dataDir,
      (db) =>
        new JobQueue(db).enqueue(contentIngestJob, { website_id: websiteId, raw_content_ids: ['raw_console_refused'] })
          .id,
    );
    await page.getByRole('button', { name: 'Refresh' }).click();
    const card = page.getByRole('listitem', { name: `Content ingest ${jobId}: Succeeded` });
    await card.waitFor({ timeout: 60_000 });
    await card.getByText('1 item was refused').waitFor();
    const show = card.getByRole('button', { name: 'Show the refused items' });
    await show.focus();
    await page.keyboard.press('Enter');
    const items = card.getByRole('list', { name: `Items refused by Content ingest ${jobId}` });
    await items.waitFor();
    const item = items.getByRole('listitem');
    await expect.poll(() => item.count()).toBe(1);
    const text = await item.textContent();
    expect(text).toContain('old-format-post');
    expect(text).toContain('item.body_invalid');
    expect(text).toMatch(/not a valid IngestItem: checksum: .*push the item again with these fields fixed/);
    await expect
      .poll(() => card.getByRole('button', { name: 'Hide the refused items' }).getAttribute('aria-expanded'))
      .toBe('true');
    await checkPage();
  });

  it('finds a fact with its words highlighted and opens its entity with facts, sources and related entities', async () => {
    await tab('Knowledge').click();
    await heading('Knowledge').waitFor();
    await checkPage();
    const results = await searchKnowledge(page, 'Editor in chief');
    // The query is in the address: a reload repeats the search.
    await page.reload();
    await results.waitFor();
    expect(await results.locator('mark').count()).toBeGreaterThan(1);
    await checkPage();

    await results
      .getByRole('link', { name: /Jane Doe/ })
      .first()
      .click();
    await heading('Jane Doe').waitFor();
    expect(new URL(page.url()).pathname).toMatch(
      new RegExp(`^/console/websites/${websiteId}/entities/entity_[0-9a-f]{24}$`),
    );
    const facts = page.getByRole('table', { name: /Facts about Jane Doe/ });
    await facts.waitFor();
    expect(await facts.textContent()).toContain('Editor in chief');
    expect(await facts.getByRole('link', { name: /blog\.fieldnotes\.example/ }).count()).toBeGreaterThan(0);
    await page.getByRole('heading', { level: 2, name: 'Related entities' }).waitFor();
    await checkPage();
  });

  it('creates a webhook to a local receiver (secret shown once), edits it, rotates its secret and sends a test ping', async () => {
    await tab('Webhooks').click();
    await heading('Webhooks').waitFor();
    await page.getByText('No webhooks yet.').waitFor();
    await checkPage();
    await addWebhook(page, receiverUrl, [/The node was taken down/], checkPage);
    const secret = page.locator('.secret-value');

    const card = page.getByRole('article', { name: `Webhook ${receiverUrl}` });
    await card.getByRole('button', { name: 'Edit' }).click();
    await card.getByLabel(/Description/).fill('Ops channel');
    await card.getByRole('button', { name: 'Save changes' }).click();
    await card.getByText(/secret version 1 · Ops channel/).waitFor();
    await card.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('heading', { name: `The new signing secret of ${receiverUrl}` }).waitFor();
    expect(await secret.textContent()).toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'I have stored it' }).click();
    await card.getByText(/secret version 2/).waitFor();
    await card.getByRole('button', { name: 'Send a test ping' }).click();
    await card.getByText(/Test ping delivered: HTTP 200/).waitFor();
    expect(receiver.received.some((r) => r.body.includes('webhook.test'))).toBe(true);
    await checkPage();
  });

  it('previews the next version, publishes it with progress shown, rolls back and takes the node down', async () => {
    await tab('Node').click();
    await heading('Node').waitFor();
    await page.getByText('Nothing is live yet: every file is new.').waitFor({ timeout: 60_000 });
    await page.getByText(/^Every file of the next version \(\d+\)$/).click();
    const files = page.getByRole('table', { name: 'Files of the next version against the live one' });
    expect(await files.getByRole('row', { name: /llms\.txt New/ }).count()).toBe(1);
    await page.getByText('No version published yet').waitFor();
    await checkPage();

    await publishNextVersion(page, 1);
    await page.getByText('a publish would find nothing changed.').waitFor();
    await checkPage();

    // The live files, linked where the daemon serves them; reads made here feed the analytics test.
    const llms = page.getByRole('link', { name: 'llms.txt', exact: true });
    expect(await llms.getAttribute('href')).toBe(`${daemon.url}/nodes/${DOMAIN}/llms.txt`);
    for (const agent of ['GPTBot/1.2', 'GPTBot/1.2', 'ClaudeBot/1.0', 'curl/8.0'])
      expect(await readNodeFile('llms.txt', agent)).toBe(200);
    expect(await readNodeFile('manifest.json', 'ClaudeBot/1.0')).toBe(200);

    // A second version (forced: nothing changed), then back to the first.
    await publishNextVersion(page, 2, { force: true });
    await rollBackTo(page, 1);
    await checkPage();

    // Takedown asks for the domain typed out.
    const takedown = page.getByRole('button', { name: 'Take the node down' });
    expect(await takedown.isDisabled()).toBe(true);
    await page.getByLabel(/Type the domain/).fill(DOMAIN);
    await takedown.click();
    await page.getByText(/The node is taken down/).waitFor();
    expect(await readNodeFile('llms.txt', 'curl/8.0')).toBe(410);
    await checkPage();
  });

  it('charts the node reads per day by agent, with the numbers as a table and the most read files', async () => {
    // The daemon counts reads by the hour (flushed every 2 s); analytics.aggregate (hourly) makes the daily rows the
    // route answers: run here as the job would, until the reads above are in.
    const readsOfToday = async () => {
      await withControlDb(daemon.dataDir, (db) => rollUpAnalytics(db, Date.now()));
      const res = await fetch(`${daemon.url}/v1/websites/${websiteId}/analytics`, {
        headers: { authorization: `Bearer ${apiKey}` },
      });
      const days = ((await res.json()) as any).data.days as Array<{ node_reads: number }>;
      return days.at(-1)!.node_reads;
    };
    await expect.poll(readsOfToday, { timeout: 20_000 }).toBeGreaterThanOrEqual(5);

    await tab('Analytics').click();
    await heading('Analytics').waitFor();
    const chart = page.getByRole('img', { name: /Node reads per day/ });
    await chart.waitFor();
    expect(await chart.locator('rect.agent-gptbot').count()).toBe(1);
    expect(await chart.locator('rect.agent-claudebot').count()).toBe(1);
    await page.getByText('The numbers as a table').click();
    const numbers = page.getByRole('table', { name: 'Node reads per day by agent' });
    const today = new Date().toISOString().slice(0, 10);
    const row = numbers.getByRole('row', { name: new RegExp(`^${today}`) });
    expect(await row.getByRole('cell').allTextContents()).toEqual(expect.arrayContaining(['2']));
    const top = page.getByRole('table', { name: 'The most read node files' });
    expect(await top.getByRole('row', { name: /llms\.txt/ }).textContent()).toContain('4');
    await checkPage();
  });

  it('shows the delivery of a real event with its attempt, and resends it', async () => {
    await tab('Webhooks').click();
    // The takedown above emitted node.taken_down; its delivery runs as a job, so the list is read until it succeeded.
    const { card, delivery, attempts } = await seeDelivery(page, receiverUrl, 'node.taken_down');
    await checkPage();

    await delivery.getByRole('button', { name: 'Resend' }).click();
    await delivery.getByText('Resent: a new attempt is queued now.').waitFor();
    await expect
      .poll(async () => {
        await card.getByRole('button', { name: 'Refresh deliveries' }).click();
        return attempts.getByRole('row', { name: /Resend HTTP 200/ }).count();
      })
      .toBe(1);
    expect(receiver.received.filter((r) => r.body.includes('node.taken_down')).length).toBe(2);
    await checkPage();
  });
});
