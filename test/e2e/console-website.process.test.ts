import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../src/control/records/organizations.js';
import { createUser } from '../../src/control/records/users.js';
import { IngestClient, IngestError } from '../../src/sdk/client/index.js';
import { openBrowser, type TestBrowser } from '../helpers/browser.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { withControlDb } from '../helpers/seed.js';
import { startLoopbackDns, type LoopbackDns } from '../platform/net/loopback-servers.js';
import { copyValue as copyValueOf, expectSoundPage, heading as headingOf, verifyWithDnsTxt } from './console-steps.js';

/**
 * The website pages of the console in Chromium against a real daemon (docs/console.md): create a
 * website, verify it through the wizard against a DNS server on loopback (the daemon's dnsServers
 * setting points at it), connectors with their once-shown tokens used by the reference client,
 * then edit, aliases, transfer and delete with the typed confirmation.
 */
const EMAIL = 'owner@shop.example';
const PASSWORD = 'a long console password';
const DOMAIN = 'shop.fieldnotes.example';

let dns: LoopbackDns;
let daemon: TestDaemon;
let browser: TestBrowser;
let page: Page;
let websiteId: string;
let verificationToken: string;

beforeAll(async () => {
  dns = await startLoopbackDns();
  daemon = await startTestDaemon({ env: { NODECTL_DNS_SERVERS: dns.server } });
  await withControlDb(daemon.dataDir, async (db) => {
    await createUser(db, { email: EMAIL, password: PASSWORD });
    createOrganization(db, { name: 'Field Notes', ownerEmail: EMAIL, plan: 'pro' });
    createOrganization(db, { name: 'Archive', ownerEmail: EMAIL, plan: 'pro' });
  });
  browser = await openBrowser();
  page = browser.page;
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: daemon.url });
});

afterAll(async () => {
  await browser?.close();
  await daemon?.stop();
  await dns?.close();
});

const heading = (name: string | RegExp) => headingOf(page, name);
const copyValue = (label: string) => copyValueOf(page, label);

/** Every page built here: the shared checks, and no element inside main scrolling past 360 px either. */
async function pageIsSound(): Promise<void> {
  await expectSoundPage(page, browser);
  const overflowing = await page.evaluate(() =>
    [...document.querySelectorAll('main *')]
      .filter((element) => element.scrollWidth > innerWidth)
      .map((element) => `${element.tagName.toLowerCase()}.${element.className}: ${element.textContent?.slice(0, 40)}`),
  );
  expect(overflowing).toEqual([]);
}

function client(token: string): IngestClient {
  return new IngestClient({
    baseUrl: daemon.url,
    token,
    websiteId,
    siteDomain: DOMAIN,
    retry: { maxAttempts: 1 },
  });
}

/** The error code a heartbeat signed with `token` is refused with, or 'ok'. */
async function heartbeatWith(token: string): Promise<string> {
  try {
    await client(token).heartbeat({ connector_state: 'idle' });
    return 'ok';
  } catch (error) {
    if (error instanceof IngestError) return error.code;
    throw error;
  }
}

describe('the website pages of the console', () => {
  it('creates a website; a connector is refused while it is not verified, pointing to the wizard', async () => {
    await page.goto(`${daemon.url}/console/`);
    await heading('Sign in to nodectl').waitFor();
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading('Organizations').waitFor();
    await page.getByRole('link', { name: 'Field Notes' }).click();
    await heading('Websites of Field Notes').waitFor();
    await page.getByLabel('Domain').fill(DOMAIN);
    await page.getByLabel('Name').fill('Shop');
    await page.getByRole('button', { name: 'Add website' }).click();
    await page.getByRole('link', { name: DOMAIN }).click();

    await heading('Shop').waitFor();
    websiteId = /\/websites\/(web_[^/]+)$/.exec(new URL(page.url()).pathname)![1]!;
    expect(await page.locator('.fields').textContent()).toContain('Not verified yet');
    await pageIsSound();

    await page.getByRole('navigation', { name: 'Website' }).getByRole('link', { name: 'Connectors' }).click();
    await heading('Connectors').waitFor();
    await page.getByText('No connector yet.').waitFor();
    expect(await page.locator('.notice').textContent()).toContain('is not verified yet');
    await page.getByRole('button', { name: 'Create connector' }).click();
    const refused = page.getByRole('alert');
    await refused.waitFor();
    expect(await refused.textContent()).toMatch(/is not verified, so no connector token is issued/);
    await pageIsSound();
    await page.getByRole('link', { name: 'Go to the verification tab' }).click();
    await heading('Verify ownership').waitFor();
  });

  it('verifies the domain with a DNS TXT record: a failed check says why, then the record verifies it', async () => {
    const { value } = await verifyWithDnsTxt(page, dns, DOMAIN, pageIsSound);
    verificationToken = value.slice('nodectl-verify='.length);
    await expect.poll(() => page.locator('.fields').first().textContent()).toContain('dns_txt (score 1)');
    // The record stays shown, with its copy button.
    await page.getByRole('button', { name: 'Copy Value' }).click();
    await page.getByText('Copied').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(value);
  });

  it('shows the exact meta tag and file for those methods', async () => {
    await page.getByLabel('Meta tag on the home page').check();
    await page.getByRole('button', { name: 'Show what to place for this method' }).click();
    await page.getByText('Meta tag on the home page:').waitFor();
    // The token stays the one of the DNS challenge: a proof placed before stays valid.
    const token = verificationToken;
    expect(await copyValue('Meta tag')).toBe(`<meta name="nodectl-verify" content="${token}">`);
    expect(await copyValue('Page')).toMatch(new RegExp(`^https?://${DOMAIN.replaceAll('.', '\\.')}(:\\d+)?/$`));
    await pageIsSound();

    await page.getByLabel('File under /.well-known/').check();
    await page.getByRole('button', { name: 'Show what to place for this method' }).click();
    await page.getByText('File under /.well-known/:').waitFor();
    expect(await copyValue('File address')).toMatch(/\/\.well-known\/nodectl-verify\.txt$/);
    expect(await copyValue('File content')).toBe(`nodectl-verify=${token}`);
    // A verified domain stays verified while another method's challenge is open.
    expect(await page.locator('.fields').first().textContent()).toContain('Verified');
    await pageIsSound();
  });

  it('creates a connector whose token is shown once and works; rotate, suspend, resume and delete', async () => {
    await page.getByRole('navigation', { name: 'Website' }).getByRole('link', { name: 'Connectors' }).click();
    await heading('Connectors').waitFor();
    expect(await page.locator('.notice').count()).toBe(0);
    await page.getByLabel('Name').fill('Blog files');
    await page.getByLabel('product').check();
    await page.getByRole('button', { name: 'Create connector' }).click();
    await page.getByRole('heading', { name: 'Token for Blog files' }).waitFor();
    // The focus moves to the token, above the list, so a keyboard or screen reader user meets it first.
    await page.waitForFunction(() => document.activeElement?.textContent === 'Token for Blog files');
    expect(await page.locator('.secret').textContent()).toContain('you will not see it again');
    const token = await copyValue('Connector token');
    expect(token).toMatch(/^conn_[^.]+\..+/);
    expect(await copyValue('Push command')).toContain(`NODECTL_CONNECTOR_TOKEN='${token}' nodectl push`);
    const card = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Blog files' }) });
    await card.waitFor();
    expect(await card.textContent()).toContain('Last heartbeatnever');
    expect(await card.textContent()).toContain('page, post, product');
    await pageIsSound();

    // The token works: a heartbeat signed with it, then the list shows it.
    expect(await heartbeatWith(token)).toBe('ok');
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect.poll(() => card.textContent()).toMatch(/Last heartbeat\d{4}-\d\d-\d\d \d\d:\d\d UTC \(idle\)/);

    // Shown once: dismissed, and gone after a reload too.
    await page.getByRole('button', { name: 'I have saved the token' }).click();
    await page.reload();
    await heading('Connectors').waitFor();
    await card.waitFor();
    expect(await page.content()).not.toContain(token.split('.')[1]);

    await page.getByRole('button', { name: 'Rotate the token of Blog files' }).click();
    await page.getByRole('heading', { name: 'New token for Blog files' }).waitFor();
    const rotated = await copyValue('Connector token');
    expect(rotated).not.toBe(token);
    expect(await heartbeatWith(token)).toBe('auth.token_revoked');
    expect(await heartbeatWith(rotated)).toBe('ok');
    await expect.poll(() => card.textContent()).toContain('token version 2');
    await pageIsSound();

    await page.getByRole('button', { name: 'Suspend Blog files' }).click();
    await expect.poll(() => card.textContent()).toContain('Suspended');
    expect(await heartbeatWith(rotated)).toBe('auth.token_revoked');
    await page.getByRole('button', { name: 'Resume Blog files' }).click();
    await expect.poll(() => card.textContent()).toContain('Active');
    expect(await heartbeatWith(rotated)).toBe('ok');

    await page.getByRole('button', { name: 'Delete Blog files' }).click();
    await page.getByRole('group', { name: 'Confirm deleting Blog files' }).waitFor();
    await pageIsSound();
    // Keyboard alone: the focus waits on Cancel; the destructive choice is one step back.
    await page.waitForFunction(() => document.activeElement?.textContent === 'Cancel');
    await page.keyboard.press('Shift+Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Yes, delete Blog files');
    await page.keyboard.press('Enter');
    await expect.poll(() => card.textContent()).toContain('Deleted');
    await page.waitForFunction(() => document.activeElement?.textContent === 'Blog files');
    expect(await card.getByRole('button').count()).toBe(0);
    expect(await heartbeatWith(rotated)).toBe('auth.token_revoked');
    await pageIsSound();
  });

  it('edits the name, adds and removes an alias, transfers, and deletes with the typed confirmation', async () => {
    await page.getByRole('navigation', { name: 'Website' }).getByRole('link', { name: 'Overview' }).click();
    await heading('Shop').waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Shop of Field Notes');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await heading('Shop of Field Notes').waitFor();
    await page.getByText('Saved.').waitFor();

    await page.getByLabel('Alias domain', { exact: true }).fill(`www.${DOMAIN}`);
    await page.getByRole('button', { name: 'Add alias' }).click();
    const alias = page.getByRole('list', { name: 'Alias domains' }).getByRole('listitem');
    await alias.waitFor();
    expect(await alias.textContent()).toContain(`www.${DOMAIN}`);
    expect(await alias.textContent()).toContain('Not verified yet');
    await pageIsSound();
    await page.getByRole('button', { name: `Remove alias www.${DOMAIN}` }).click();
    await page.getByText('No alias yet.').waitFor();

    // Transfer: the caller owns Archive too, the only choice offered.
    await page.getByLabel('Move to').selectOption({ label: 'Archive' });
    await page.getByRole('button', { name: 'Transfer website' }).click();
    await page.getByText('Moved to Archive.').waitFor();

    // Delete: the button stays disabled until the domain is typed.
    const remove = page.getByRole('button', { name: 'Delete website' });
    expect(await remove.isDisabled()).toBe(true);
    await page.getByLabel(`Type ${DOMAIN} to confirm`).fill('shop.example');
    expect(await remove.isDisabled()).toBe(true);
    await page.getByLabel(`Type ${DOMAIN} to confirm`).fill(DOMAIN.toUpperCase());
    expect(await remove.isDisabled()).toBe(false);
    await pageIsSound();
    await remove.click();
    await heading('Websites of Archive').waitFor();
    await page.getByText('No websites yet.').waitFor();
    await page.goto(`${daemon.url}/console/websites/${websiteId}`);
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toMatch(/not found|does not exist|no website/i);
  });
});
