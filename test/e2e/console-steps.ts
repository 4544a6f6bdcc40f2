import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Secret, TOTP } from 'otpauth';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { seriousAccessibilityViolations, type TestBrowser } from '../helpers/browser.js';
import { runNodectl } from '../helpers/cli.js';
import type { TestDaemon } from '../helpers/daemon.js';
import { PROJECT_ROOT } from '../helpers/paths.js';
import type { LoopbackDns } from '../platform/net/loopback-servers.js';

/**
 * Steps of the console's browser tests that more than one file takes (the per-page files and the
 * journey of issue 38): each drives the pages as a user does and checks what the user sees.
 */

export const heading = (page: Page, name: string | RegExp) => page.getByRole('heading', { level: 1, name });

export const websiteTab = (page: Page, name: string) =>
  page.getByRole('navigation', { name: 'Website' }).getByRole('link', { name, exact: true });

/** The code an authenticator app shows at `ms`. */
export function totp(secret: string, ms: number): string {
  return new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) }).generate({
    timestamp: ms,
  });
}

/**
 * What every console page must hold: no serious or critical axe violation, no CSP fault or page
 * error, and nothing past the right edge of the window (360 px wide: no sideways scroll).
 */
export async function expectSoundPage(page: Page, browser: TestBrowser): Promise<void> {
  expect(await seriousAccessibilityViolations(page)).toEqual([]);
  expect(browser.faults()).toEqual([]);
  // Named, so a failure says what to fix.
  const wide = await page.evaluate(() =>
    [...document.querySelectorAll('body *')]
      .filter((element) => element.getBoundingClientRect().right > innerWidth + 0.5)
      .map((element) => `${element.tagName.toLowerCase()}.${element.className} ${element.textContent?.slice(0, 40)}`),
  );
  expect(wide).toEqual([]);
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= innerWidth)).toBe(true);
}

export async function signIn(page: Page, email: string, password: string): Promise<void> {
  await heading(page, 'Sign in to nodectl').waitFor();
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

export async function signOut(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  await heading(page, 'Sign in to nodectl').waitFor();
}

/** The body of an .eml as a mail client shows it: quoted-printable soft breaks and escapes undone. */
function decodeQuotedPrintable(raw: string): string {
  return raw
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

/** The links of the .eml files the daemon wrote to `email` with `subject`, oldest first (file names sort by time). */
function mailedLinks(dataDir: string, email: string, subject: string): string[] {
  const dir = join(dataDir, 'mail');
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.eml'));
  } catch {
    return [];
  }
  return files
    .sort()
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .filter((m) => m.includes(`To: ${email}\r\n`) && m.includes(`Subject: ${subject}\r\n`))
    .map((m) => /https?:\/\/\S+\?token=[A-Za-z0-9_-]+/.exec(decodeQuotedPrintable(m))?.[0] ?? `no link in:\n${m}`);
}

/**
 * Waits for the `count`-th mail to `email` with `subject` in the daemon's file outbox (mail leaves
 * through a job) and answers its link, which must open the daemon's own console (appBaseUrl).
 */
export async function mailedLink(daemon: TestDaemon, email: string, subject: string, count = 1): Promise<string> {
  await expect
    .poll(() => mailedLinks(daemon.dataDir, email, subject).length, { timeout: 20_000 })
    .toBeGreaterThanOrEqual(count);
  const link = mailedLinks(daemon.dataDir, email, subject)[count - 1]!;
  expect(link.startsWith(`${daemon.url}/console/`)).toBe(true);
  return link;
}

/** The exact text shown beside a copy button (the code element of a CopyField). */
export async function copyValue(page: Page, label: string): Promise<string> {
  const field = page.locator('.copy-field').filter({ has: page.locator('dt', { hasText: new RegExp(`^${label}$`) }) });
  return (await field.locator('code').textContent()) ?? '';
}

/**
 * On the verification tab: asks for a DNS TXT challenge, reads the exact record shown, checks once
 * before it exists (the page says NXDOMAIN and what to fix), sets it in the loopback DNS server
 * (the daemon's dnsServers) and checks again until verified. Answers the record.
 */
export async function verifyWithDnsTxt(
  page: Page,
  dns: LoopbackDns,
  domain: string,
  sound: () => Promise<void>,
): Promise<{ name: string; value: string }> {
  await heading(page, 'Verify ownership').waitFor();
  expect(await page.locator('.fields').first().textContent()).toContain('Not verified yet');
  await page.getByLabel('DNS TXT record').check();
  await page.getByRole('button', { name: 'Show what to place' }).click();
  await page.getByRole('heading', { name: '2. Place this proof' }).waitFor();
  const name = await copyValue(page, 'Name');
  const value = await copyValue(page, 'Value');
  expect(await copyValue(page, 'Record type')).toBe('TXT');
  expect(name).toBe(`_nodectl-verify.${domain}`);
  expect(value).toMatch(/^nodectl-verify=[0-9a-f]{32}$/);
  await sound();

  // Before the record exists: the DNS server answers NXDOMAIN, and the page says what to do.
  await page.getByRole('button', { name: 'Check now' }).click();
  const failed = page.getByRole('alert');
  await failed.waitFor();
  expect(await failed.textContent()).toContain('NXDOMAIN');
  expect(await failed.textContent()).toContain('The TXT record is not there yet');
  // The status box is read again after the check: waited for, not read at once.
  await expect
    .poll(() => page.locator('.fields').first().textContent())
    .toMatch(/Failed checks1 since the last that passed/);
  await sound();

  dns.set(name, { TXT: [[value]] });
  await page.getByRole('button', { name: 'Check now' }).click();
  await page.getByText(`The check passed: ${domain} is verified.`).waitFor();
  await expect.poll(() => page.locator('.fields').first().textContent()).toContain('Verified by dns_txt');
  expect(await page.getByRole('alert').count()).toBe(0);
  expect(dns.queries(name, 'TXT')).toBeGreaterThanOrEqual(2);
  await sound();
  return { name, value };
}

/** `nodectl push` of the blog fixture as the website's connector (the token in NODECTL_CONNECTOR_TOKEN). */
export async function pushBlogFixture(daemon: TestDaemon, websiteId: string, domain: string, token: string) {
  const push = await runNodectl(
    [
      'push',
      join(PROJECT_ROOT, 'fixtures/blog/items.jsonl'),
      '--url',
      daemon.url,
      '--website',
      websiteId,
      '--domain',
      domain,
    ],
    { env: { NODECTL_CONNECTOR_TOKEN: token } },
  );
  expect(push.exitCode, push.stderr).toBe(0);
  expect(push.stdout).toMatch(/accepted 8, skipped 0, errored 0/);
}

/** On the jobs page after a push: the ingest job is listed and followed, without a reload, until it succeeded. */
export async function watchIngestSucceed(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Refresh' }).click();
  // Whatever state the page first reads, it follows the job on its own until it succeeds.
  await page
    .getByRole('listitem', { name: /^Content ingest job_\w+/ })
    .first()
    .waitFor();
  await page
    .getByRole('listitem', { name: /^Content ingest job_\w+: Succeeded$/ })
    .first()
    .waitFor({ timeout: 60_000 });
  await expect.poll(() => page.getByRole('progressbar').count()).toBe(0);
}

/** On the knowledge page: searches `query` and answers the results list once it shows the words marked. */
export async function searchKnowledge(page: Page, query: string) {
  await heading(page, 'Knowledge').waitFor();
  await page.getByLabel("Search the website's knowledge").fill(query);
  await page.getByRole('button', { name: 'Search' }).click();
  const results = page.getByRole('list', { name: `Results for ${query}` });
  await results.waitFor();
  expect(new URL(page.url()).searchParams.get('q')).toBe(query);
  const marks = await results.locator('mark').allTextContents();
  const words = query
    .toLowerCase()
    .split(/\s+/)
    .filter((word) => word.length > 2);
  expect(marks.map((m) => m.toLowerCase())).toEqual(expect.arrayContaining(words));
  return results;
}

/** A webhook receiver in the test's process: it answers 200 "thanks" and keeps what it received. */
export async function startWebhookReceiver() {
  const received: Array<{ headers: IncomingMessage['headers']; body: string }> = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push({ headers: request.headers, body });
      response.writeHead(200, { 'content-type': 'text/plain' }).end('thanks');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** On the webhooks page: adds a subscription to `url` (with `events` ticked besides the defaults); the secret is shown once. */
export async function addWebhook(page: Page, url: string, events: RegExp[], sound: () => Promise<void>): Promise<void> {
  await page.getByLabel('Receiver URL').fill(url);
  for (const event of events) await page.getByLabel(event).check();
  await page.getByRole('button', { name: 'Add webhook' }).click();
  const secret = page.locator('.secret-value');
  await secret.waitFor();
  expect(await secret.textContent()).toMatch(/^whsec_/);
  await page.getByText('you will not see it again').waitFor();
  await sound();
  await page.getByRole('button', { name: 'I have stored it' }).click();
  expect(await secret.count()).toBe(0);
}

export const versionsTable = (page: Page) => page.getByRole('table', { name: 'Published versions, newest first' });

/**
 * On the node page: publishes the next version (the `n`-th of the day; forced when nothing
 * changed) and checks the streamed progress, one line per stage through the flip.
 */
export async function publishNextVersion(page: Page, n: number, options: { force?: boolean } = {}): Promise<void> {
  if (options.force) await page.getByLabel('Publish a new version even though nothing changed').check();
  await page.getByRole('button', { name: 'Publish the next version' }).click();
  await page.getByText(new RegExp(`^Published version \\d{4}-\\d{2}-\\d{2}\\.${n} `)).waitFor({ timeout: 60_000 });
  const steps = await page.getByRole('list', { name: 'Publish steps' }).getByRole('listitem').allTextContents();
  expect(steps[0]).toMatch(/^Compiling/);
  expect(steps.some((s) => s.startsWith('Uploading'))).toBe(true);
  expect(steps.at(-1)).toMatch(/^Switching to the new version/);
  await versionsTable(page)
    .getByRole('row', { name: new RegExp(`\\.${n} .*Live`) })
    .waitFor();
}

/** On the node page: rolls back to the day's `n`-th version after the confirmation. */
export async function rollBackTo(page: Page, n: number): Promise<void> {
  await versionsTable(page)
    .getByRole('button', { name: new RegExp(`^Roll back to \\d{4}-\\d{2}-\\d{2}\\.${n}$`) })
    .click();
  await page.getByRole('button', { name: 'Roll back now' }).click();
  await page.getByText(new RegExp(`^Version \\d{4}-\\d{2}-\\d{2}\\.${n} is live again\\.$`)).waitFor();
  await versionsTable(page)
    .getByRole('row', { name: new RegExp(`\\.${n} .*Live`) })
    .waitFor();
}

/**
 * On the webhooks page: opens the deliveries of the subscription to `url` and refreshes them until
 * one of `event` succeeded (deliveries run as jobs), then shows its attempts: the first, HTTP 200.
 */
export async function seeDelivery(page: Page, url: string, event: string) {
  const card = page.getByRole('article', { name: `Webhook ${url}` });
  await card.waitFor();
  await card.getByRole('button', { name: 'Show deliveries' }).click();
  const delivery = card.getByRole('listitem', { name: `Delivery of ${event}: succeeded` }).first();
  await expect
    .poll(async () => {
      await card.getByRole('button', { name: 'Refresh deliveries' }).click();
      return delivery.count();
    })
    .toBe(1);
  await delivery.getByRole('button', { name: 'Show attempts' }).click();
  const attempts = delivery.getByRole('table', { name: 'Attempts of this delivery, in order' });
  await attempts.getByRole('row', { name: /Scheduled HTTP 200/ }).waitFor();
  return { card, delivery, attempts };
}
