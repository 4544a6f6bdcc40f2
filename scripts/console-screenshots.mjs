#!/usr/bin/env node
// Remakes the screenshots in docs/console.md: a daemon on a fresh data directory with one owner, an
// organization and a website, content pushed with the CLI, reads made as AI crawlers, a webhook to a
// receiver in this process; Debian's Chromium (scripts/ensure-test-tools.sh) driven by playwright-core.
// Run: npm run build && node scripts/console-screenshots.mjs
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin', 'nodectl');
const EMAIL = 'owner@fieldnotes.example';
const COLLEAGUE = 'sam@fieldnotes.example';
const PASSWORD = 'a long console password';
const DOMAIN = 'blog.fieldnotes.example';
const dataDir = mkdtempSync(join(tmpdir(), 'nodectl-screenshots-'));
// The webhook receiver below is on loopback, which deliveries reach only when allowed.
const env = { ...process.env, NODECTL_LOG_LEVEL: 'warn', NODECTL_FETCH_ALLOW_PRIVATE_ADDRESSES: 'true' };
const cli = (...args) => execFileSync(BIN, ['--data-dir', dataDir, ...args], { env, encoding: 'utf8' });
const json = (...args) => JSON.parse(cli('--json', ...args));
cli('admin', 'user', 'create', '--email', EMAIL, '--password', PASSWORD);
cli('admin', 'user', 'create', '--email', COLLEAGUE, '--password', PASSWORD);
const org = json('admin', 'org', 'create', '--name', 'Field Notes', '--owner', EMAIL, '--plan', 'pro').id;
const websiteId = json('admin', 'website', 'create', '--org', org, '--name', 'Field Notes blog', '--domain', DOMAIN).id;
cli('admin', 'website', 'verify', '--website', websiteId, '--manual');

const receiver = createServer((request, response) => {
  request.resume();
  request.on('end', () => response.writeHead(200, { 'content-type': 'text/plain' }).end('thanks'));
});
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverUrl = `http://127.0.0.1:${receiver.address().port}/hooks`;

const daemon = spawn(BIN, ['--data-dir', dataDir, 'serve', '--port', '0'], { env });
let output = '';
const url = await new Promise((resolve, reject) => {
  const read = (chunk) => {
    output += chunk;
    const match = /listening on (http:\/\/\S+)/.exec(output);
    if (match) resolve(match[1]);
  };
  daemon.stdout.on('data', read);
  daemon.stderr.on('data', read);
  daemon.on('exit', (code) => reject(new Error(`serve exited with ${code}:\n${output}`)));
});

const shot = (name) => join(ROOT, 'docs', `console-${name}.png`);
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking'],
});

/** Waits for `check` to answer true, asking every 200 ms, for at most `ms`. */
async function until(what, check, ms = 60_000) {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((resolve) => setTimeout(resolve, 200)))
    if (await check()) return;
  throw new Error(`timed out waiting for ${what}`);
}

/** The day's node reads the analytics route answers, after the hourly rollup job's work is done here. */
async function readsOfToday(accessToken) {
  const { dataDirLayout } = await import('../dist/platform/storage/data-dir.js');
  const { openControlDb } = await import('../dist/platform/storage/control.js');
  const { rollUpAnalytics } = await import('../dist/control/analytics/rollup.js');
  const db = openControlDb(dataDirLayout(dataDir));
  try {
    rollUpAnalytics(db, Date.now());
  } finally {
    db.close();
  }
  const res = await fetch(`${url}/v1/websites/${websiteId}/analytics`, {
    headers: { authorization: `Bearer ${accessToken}` },
  });
  return (await res.json()).data.days.at(-1).node_reads;
}

async function signIn(page) {
  await page.goto(`${url}/console/`);
  await page.getByRole('heading', { level: 1, name: 'Sign in to nodectl' }).waitFor();
  await page.getByLabel('Email').fill(EMAIL);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Organizations' }).waitFor();
}

try {
  const context = await browser.newContext({ viewport: { width: 1100, height: 700 } });
  const page = await context.newPage();
  const heading = (name) => page.getByRole('heading', { level: 1, name }).waitFor();
  const tab = (name) => page.getByRole('navigation', { name: 'Website' }).getByRole('link', { name, exact: true });
  // The page as tall as its content, up to 1200 px: every state the caption names, in a file of modest size.
  const take = async (name) => {
    const height = await page.evaluate('document.documentElement.scrollHeight');
    await page.screenshot({
      path: shot(name),
      fullPage: true,
      clip: { x: 0, y: 0, width: 1100, height: Math.min(height, 1200) },
    });
  };

  await page.goto(`${url}/console/`);
  await heading('Sign in to nodectl');
  await page.screenshot({ path: shot('sign-in') });
  await signIn(page);
  await page.screenshot({ path: shot('organizations') });

  await page.getByRole('link', { name: 'Field Notes' }).click();
  await heading(/Websites/);
  await page.getByLabel('Domain').fill('shop.fieldnotes.example');
  await page.getByLabel('Name', { exact: true }).fill('Field Notes shop');
  await page.getByRole('button', { name: 'Add website' }).click();
  await page.getByRole('row', { name: /shop\.fieldnotes\.example/ }).waitFor();
  await page.screenshot({ path: shot('websites-desktop') });

  // The shop is not verified: the wizard with the DNS record to place.
  await page.getByRole('link', { name: 'shop.fieldnotes.example' }).click();
  await heading('Field Notes shop');
  await tab('Verification').click();
  await heading('Verify ownership');
  await page.getByLabel('DNS TXT record').check();
  await page.getByRole('button', { name: 'Show what to place' }).click();
  await page.getByRole('heading', { name: '2. Place this proof' }).waitFor();
  await take('verification');

  await page.goto(`${url}/console/websites/${websiteId}`);
  await heading('Field Notes blog');
  await take('website-overview');

  await tab('Connectors').click();
  await heading('Connectors');
  await page.getByLabel('Name').fill('Blog files');
  for (const type of ['profile', 'collection']) await page.getByLabel(type, { exact: true }).check();
  await page.getByRole('button', { name: 'Create connector' }).click();
  await page.getByRole('heading', { name: 'Token for Blog files' }).waitFor();
  const token = await page
    .locator('.copy-field')
    .filter({ has: page.locator('dt', { hasText: /^Connector token$/ }) })
    .locator('code')
    .textContent();
  await take('connectors');
  await page.getByRole('button', { name: 'I have saved the token' }).click();

  // A webhook before anything happens, so the publish below is delivered to it.
  await tab('Webhooks').click();
  await heading('Webhooks');
  await page.getByLabel('Receiver URL').fill(receiverUrl);
  await page.getByRole('button', { name: 'Add webhook' }).click();
  await page.getByRole('button', { name: 'I have stored it' }).click();

  execFileSync(
    BIN,
    ['push', join(ROOT, 'fixtures/blog/items.jsonl'), '--url', url, '--website', websiteId, '--domain', DOMAIN],
    {
      env: { ...env, NODECTL_CONNECTOR_TOKEN: token },
    },
  );
  await tab('Jobs').click();
  await heading('Ingest and jobs');
  await page
    .getByRole('listitem', { name: /^Content ingest job_\w+: Succeeded$/ })
    .first()
    .waitFor({ timeout: 60_000 });
  await take('jobs');

  await tab('Node').click();
  await heading('Node');
  await page.getByText('Nothing is live yet: every file is new.').waitFor({ timeout: 60_000 });
  await page.getByRole('button', { name: 'Publish the next version' }).click();
  await page.getByText(/^Published version \S+\.1 /).waitFor({ timeout: 60_000 });
  await page.getByLabel('Publish a new version even though nothing changed').check();
  await page.getByRole('button', { name: 'Publish the next version' }).click();
  await page.getByText(/^Published version \S+\.2 /).waitFor({ timeout: 60_000 });
  await page
    .getByRole('table', { name: 'Published versions, newest first' })
    .getByRole('row', { name: /\.2 .*Live/ })
    .waitFor();
  await page.getByText(/Against the live version \S+\.2/).waitFor();
  await take('node');

  // Reads as crawlers and people read the node, for the analytics chart.
  for (const [file, agent, times] of [
    ['llms.txt', 'GPTBot/1.2', 5],
    ['manifest.json', 'GPTBot/1.2', 2],
    ['llms.txt', 'ClaudeBot/1.0', 3],
    ['entities.en.jsonl', 'PerplexityBot/1.0', 2],
    ['llms.txt', 'curl/8.0', 2],
  ])
    for (let i = 0; i < times; i++)
      await (await fetch(`${url}/nodes/${DOMAIN}/${file}`, { headers: { 'user-agent': agent } })).arrayBuffer();
  const login = await fetch(`${url}/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
  });
  const { accessToken } = (await login.json()).data;
  await until('the reads in the daily rollup', async () => (await readsOfToday(accessToken)) >= 14, 30_000);

  await tab('Knowledge').click();
  await heading('Knowledge');
  await page.getByLabel("Search the website's knowledge").fill('Editor in chief');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.getByRole('list', { name: 'Results for Editor in chief' }).locator('mark').first().waitFor();
  await take('knowledge');
  await page
    .getByRole('list', { name: 'Results for Editor in chief' })
    .getByRole('link', { name: /Jane Doe/ })
    .first()
    .click();
  await heading('Jane Doe');
  await page.getByRole('heading', { level: 2, name: 'Related entities' }).waitFor();
  await take('entity');

  await tab('Analytics').click();
  await heading('Analytics');
  await page.getByRole('img', { name: /Node reads per day/ }).waitFor();
  await take('analytics');

  await tab('Webhooks').click();
  const card = page.getByRole('article', { name: `Webhook ${receiverUrl}` });
  await card.getByRole('button', { name: 'Show deliveries' }).click();
  const delivery = card.getByRole('listitem', { name: 'Delivery of node.published: succeeded' }).first();
  await until('a delivery that succeeded', async () => {
    await card.getByRole('button', { name: 'Refresh deliveries' }).click();
    return (await delivery.count()) === 1;
  });
  await delivery.getByRole('button', { name: 'Show attempts' }).click();
  await delivery.getByRole('table', { name: 'Attempts of this delivery, in order' }).waitFor();
  await take('webhooks');

  const orgTab = (name) =>
    page.getByRole('navigation', { name: 'Organization' }).getByRole('link', { name, exact: true });
  await page.goto(`${url}/console/organizations/${org}/members`);
  await heading('Members of Field Notes');
  await page.getByLabel('Email address').fill(COLLEAGUE);
  await page.getByLabel(/^Role/).selectOption({ label: 'Editor' });
  await page.getByRole('button', { name: 'Invite', exact: true }).click();
  await page.getByRole('row', { name: new RegExp(COLLEAGUE) }).waitFor();
  await take('members');

  await orgTab('API keys').click();
  await heading('API keys of Field Notes');
  await page.getByLabel('Name').fill('CI deploy');
  await page.getByLabel('Role').selectOption({ label: 'Editor' });
  await page.getByRole('button', { name: 'Create key' }).click();
  await page.getByRole('button', { name: 'I have saved it' }).waitFor();
  await take('api-keys');
  await page.getByRole('button', { name: 'I have saved it' }).click();

  await orgTab('Plan and usage').click();
  await heading('Plan and usage of Field Notes');
  await page.getByRole('list', { name: 'Limits of the plan' }).waitFor();
  await take('plan');

  await orgTab('Audit log').click();
  await heading('Audit log of Field Notes');
  await page.getByRole('list', { name: 'Audit entries, newest first' }).getByRole('listitem').first().waitFor();
  await take('audit');

  await page.getByRole('link', { name: 'Account' }).click();
  await heading('Your account');
  await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
  await page.getByRole('img', { name: 'QR code of the two-factor secret' }).waitFor();
  await take('account');
  await context.close();

  // 360 px wide: the websites list, and the verification wizard down to the record to place.
  const phone = await browser.newContext({ viewport: { width: 360, height: 740 } });
  const small = await phone.newPage();
  await signIn(small);
  await small.goto(`${url}/console/organizations/${org}/websites`);
  await small.getByText('shop.fieldnotes.example').waitFor();
  await small.screenshot({ path: shot('websites-phone'), fullPage: true });
  await small.getByRole('link', { name: 'shop.fieldnotes.example' }).click();
  await small.getByRole('heading', { level: 1, name: 'Field Notes shop' }).waitFor();
  await small.getByRole('navigation', { name: 'Website' }).getByRole('link', { name: 'Verification' }).click();
  await small.getByLabel('DNS TXT record').check();
  await small.getByRole('button', { name: /^Show what to place/ }).click();
  await small.getByRole('heading', { name: '2. Place this proof' }).waitFor();
  await small.screenshot({
    path: shot('verification-phone'),
    fullPage: true,
    clip: { x: 0, y: 0, width: 360, height: 1800 },
  });
  await phone.close();
} finally {
  await browser.close();
  daemon.kill('SIGTERM');
  receiver.close();
  rmSync(dataDir, { recursive: true, force: true });
}
