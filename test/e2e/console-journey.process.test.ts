import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBrowser, type TestBrowser } from '../helpers/browser.js';
import { runNodectl } from '../helpers/cli.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { startLoopbackDns, type LoopbackDns } from '../platform/net/loopback-servers.js';
import {
  addWebhook,
  copyValue,
  expectSoundPage,
  heading,
  mailedLink,
  publishNextVersion,
  pushBlogFixture,
  rollBackTo,
  searchKnowledge,
  seeDelivery,
  signIn,
  signOut,
  startWebhookReceiver,
  totp,
  verifyWithDnsTxt,
  watchIngestSucceed,
  websiteTab,
} from './console-steps.js';

/**
 * Issue 38's journey in one go, in Chromium against one real daemon whose appBaseUrl is its own
 * /console, as a new user: sign up, the mailed link, two-factor sign-in, a website verified through
 * a DNS server on loopback, a connector whose token the CLI pushes with, the ingest job, a search,
 * a webhook, publish, rollback and the webhook's delivery. The per-page files test more cases.
 */
const EMAIL = 'newcomer@fieldnotes.example';
const PASSWORD = 'a long console password';
const DOMAIN = 'blog.fieldnotes.example';

let dns: LoopbackDns;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
let daemon: TestDaemon;
let browser: TestBrowser;
let page: Page;

beforeAll(async () => {
  dns = await startLoopbackDns();
  receiver = await startWebhookReceiver();
  daemon = await startTestDaemon({
    appBasePath: '/console',
    // The DNS server the verification asks, and the webhook receiver on loopback, which deliveries reach only when allowed.
    env: { NODECTL_DNS_SERVERS: dns.server, NODECTL_FETCH_ALLOW_PRIVATE_ADDRESSES: 'true' },
  });
  browser = await openBrowser();
  page = browser.page;
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await daemon?.stop();
  await receiver?.close();
  await dns?.close();
});

const sound = () => expectSoundPage(page, browser);

describe("issue 38's journey through the console", () => {
  it('sign up → mailed link → 2FA → website verified by DNS → connector → push → job → search → webhook → publish → roll back → delivery', async () => {
    // Sign up, from the first page a new user sees.
    const startedAt = performance.now();
    await page.goto(`${daemon.url}/console/`);
    await heading(page, 'Sign in to nodectl').waitFor();
    const firstUsableMs = performance.now() - startedAt;
    await sound();
    await page.getByRole('link', { name: 'Create an account' }).click();
    await heading(page, 'Create your account').waitFor();
    await sound();
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByLabel('Organization name').fill('Field Notes');
    await page.getByRole('button', { name: 'Create account' }).click();
    await heading(page, 'Check your mail').waitFor();
    await sound();

    // The verification link from the daemon's outbox opens the console; a button confirms.
    const link = await mailedLink(daemon, EMAIL, 'Confirm your email address');
    expect(link).toMatch(new RegExp(`^${daemon.url}/console/verify-email\\?token=`));
    await page.goto(link);
    await heading(page, 'Confirm your email address').waitFor();
    await sound();
    await page.getByRole('button', { name: 'Confirm my address' }).click();
    await page.getByText(`${EMAIL} is confirmed`).waitFor();
    await sound();

    await page.getByRole('link', { name: 'Sign in' }).click();
    await signIn(page, EMAIL, PASSWORD);
    await heading(page, 'Organizations').waitFor();
    await sound();

    // Two-factor sign-in on the account page.
    await page.getByRole('link', { name: 'Account' }).click();
    await heading(page, 'Your account').waitFor();
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    const shown = page.locator('code.secret');
    await shown.waitFor();
    const secret = (await shown.textContent())!.replace(/\s+/g, '');
    await sound();
    const activatedAt = Date.now();
    await page.getByLabel('Code from your authenticator app').fill(totp(secret, activatedAt));
    await page.getByRole('button', { name: 'Turn two-factor sign-in on' }).click();
    const codes = page.getByRole('region', { name: 'Recovery codes' });
    await codes.waitFor();
    expect(await codes.locator('li code').count()).toBe(10);
    await sound();
    await codes.getByRole('button', { name: 'I have saved them' }).click();
    await signOut(page);

    // Back in with the password and the authenticator's code (the next step's: each code works once).
    await signIn(page, EMAIL, PASSWORD);
    const code = page.getByLabel('Code from your authenticator app');
    await code.waitFor();
    await sound();
    await code.fill(totp(secret, activatedAt + 30_000));
    await page.getByRole('button', { name: 'Verify and sign in' }).click();
    await heading(page, 'Your account').waitFor();

    // The organization sign-up made; the operator moves it to pro (billing is not offered), whose webhooks the journey uses.
    await page.getByRole('link', { name: 'Organizations' }).click();
    await heading(page, 'Organizations').waitFor();
    await page.getByRole('link', { name: 'Field Notes' }).click();
    await heading(page, 'Websites of Field Notes').waitFor();
    const organizationId = /\/organizations\/(org_[^/]+)\//.exec(page.url())![1]!;
    const setPlan = await runNodectl(['admin', 'org', 'set-plan', '--org', organizationId, '--plan', 'pro'], {
      dataDir: daemon.dataDir,
    });
    expect(setPlan.exitCode, setPlan.stderr).toBe(0);
    await page.getByText('No websites yet.').waitFor();
    await sound();

    // A website, verified through the wizard against the DNS server on loopback.
    await page.getByLabel('Domain').fill(DOMAIN);
    await page.getByLabel('Name').fill('Field Notes blog');
    await page.getByRole('button', { name: 'Add website' }).click();
    await page.getByRole('link', { name: DOMAIN }).click();
    await heading(page, 'Field Notes blog').waitFor();
    const websiteId = /\/websites\/(web_[^/]+)$/.exec(new URL(page.url()).pathname)![1]!;
    await sound();
    await websiteTab(page, 'Verification').click();
    await verifyWithDnsTxt(page, dns, DOMAIN, sound);

    // A connector: its token shown once, read from the page, pushed with by the CLI.
    await websiteTab(page, 'Connectors').click();
    await heading(page, 'Connectors').waitFor();
    await page.getByLabel('Name').fill('Blog files');
    for (const type of ['profile', 'collection']) await page.getByLabel(type, { exact: true }).check();
    await page.getByRole('button', { name: 'Create connector' }).click();
    await page.getByRole('heading', { name: 'Token for Blog files' }).waitFor();
    expect(await page.locator('.secret').textContent()).toContain('you will not see it again');
    const token = await copyValue(page, 'Connector token');
    expect(token).toMatch(/^conn_[^.]+\..+/);
    await sound();
    await page.getByRole('button', { name: 'I have saved the token' }).click();

    await websiteTab(page, 'Jobs').click();
    await heading(page, 'Ingest and jobs').waitFor();
    await page.getByText('No jobs yet.').waitFor();
    await sound();
    await pushBlogFixture(daemon, websiteId, DOMAIN, token);
    await watchIngestSucceed(page);
    await sound();

    // A fact the push brought, found with its words marked.
    await websiteTab(page, 'Knowledge').click();
    const results = await searchKnowledge(page, 'Editor in chief');
    expect(await results.getByRole('link', { name: /Jane Doe/ }).count()).toBeGreaterThan(0);
    await sound();

    // A webhook to the receiver in this test (the default events include node.published).
    await websiteTab(page, 'Webhooks').click();
    await heading(page, 'Webhooks').waitFor();
    await page.getByText('No webhooks yet.').waitFor();
    await sound();
    await addWebhook(page, receiver.url, [], sound);

    // Publish with its progress, a second version, then back to the first.
    await websiteTab(page, 'Node').click();
    await heading(page, 'Node').waitFor();
    await page.getByText('Nothing is live yet: every file is new.').waitFor({ timeout: 60_000 });
    await sound();
    await publishNextVersion(page, 1);
    await sound();
    await publishNextVersion(page, 2, { force: true });
    await rollBackTo(page, 1);
    await sound();
    const llms = await fetch(`${daemon.url}/nodes/${DOMAIN}/llms.txt`);
    expect(await llms.text()).toContain('Field Notes');

    // The publishes' and the rollback's node.published, delivered to the receiver, with the attempt.
    await websiteTab(page, 'Webhooks').click();
    await heading(page, 'Webhooks').waitFor();
    const { attempts } = await seeDelivery(page, receiver.url, 'node.published');
    expect(await attempts.getByRole('row', { name: /Scheduled HTTP 200/ }).textContent()).toContain('thanks');
    expect(receiver.received.some((r) => r.body.includes('"node.published"'))).toBe(true);
    await sound();

    console.log(`console: first usable page (sign-in form shown) ${firstUsableMs.toFixed(0)} ms after navigation`);
  }, 240_000);
});
