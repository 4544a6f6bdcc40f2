import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../src/control/records/organizations.js';
import { createUser } from '../../src/control/records/users.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { openBrowser, seriousAccessibilityViolations, type TestBrowser } from '../helpers/browser.js';
import { withControlDb } from '../helpers/seed.js';
import { totp } from './console-steps.js';

/**
 * The web console in a real browser: Debian's Chromium driven by playwright-core (test/helpers/browser.ts)
 * against a real daemon, as a site owner uses it (docs/console.md).
 */
const EMAIL = 'owner@fieldnotes.example';
const PASSWORD = 'a long console password';

let daemon: TestDaemon;
let browser: TestBrowser;
let context: BrowserContext;
let page: Page;
let reported: string[];

beforeAll(async () => {
  daemon = await startTestDaemon();
  await withControlDb(daemon.dataDir, async (db) => {
    await createUser(db, { email: EMAIL, password: PASSWORD });
    createOrganization(db, { name: 'Field Notes', ownerEmail: EMAIL, plan: 'pro' });
  });
  browser = await openBrowser();
  ({ context, page, reported } = browser);
});

afterAll(async () => {
  await browser?.close();
  await daemon?.stop();
});

/** A JSON POST from the test's own process (not the browser), as the CLI would send it. */
async function post(path: string, body?: unknown, accessToken?: string): Promise<any> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (accessToken) headers.authorization = `Bearer ${accessToken}`;
  const res = await fetch(`${daemon.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  const answer = (await res.json()) as any;
  if (!res.ok) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(answer)}`);
  return answer.data;
}

const heading = (name: string | RegExp) => page.getByRole('heading', { level: 1, name });

describe('the web console in Chromium', () => {
  it('signs in with the keyboard, shows the organization, creates a website, survives a reload and signs out', async () => {
    const startedAt = performance.now();
    await page.goto(`${daemon.url}/console/`);
    await heading('Sign in to nodectl').waitFor();
    const firstUsableMs = performance.now() - startedAt;
    expect(await seriousAccessibilityViolations(page)).toEqual([]);

    // Keyboard alone: the page gives its heading the focus, Tab reaches the email field, Enter submits.
    await page.waitForFunction(() => document.activeElement?.tagName === 'H1');
    await page.keyboard.press('Tab');
    await page.keyboard.type(EMAIL);
    await page.keyboard.press('Tab');
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');

    await heading('Organizations').waitFor();
    await page.getByRole('link', { name: 'Field Notes' }).click();
    await heading('Websites of Field Notes').waitFor();
    await page.getByText('No websites yet.').waitFor();

    // The API's own message when it refuses the form.
    await page.getByLabel('Domain').fill('not a domain');
    await page.getByLabel('Name').fill('Field notes');
    await page.getByRole('button', { name: 'Add website' }).click();
    const refused = page.getByRole('alert');
    await refused.waitFor();
    expect(await refused.textContent()).toMatch(/domain/i);

    await page.getByLabel('Domain').fill('blog.fieldnotes.example');
    await page.getByRole('button', { name: 'Add website' }).click();
    const row = page.getByRole('row', { name: /blog\.fieldnotes\.example/ });
    await row.waitFor();
    expect(await row.textContent()).toContain('Not verified yet');
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    const websitesUrl = page.url();
    expect(new URL(websitesUrl).pathname).toMatch(/^\/console\/organizations\/org_[^/]+\/websites$/);

    // Nothing of the session is readable by script: the token is in memory, the refresh token in an HttpOnly cookie.
    expect(await page.evaluate(() => localStorage.length + sessionStorage.length)).toBe(0);
    const [cookie] = (await context.cookies()).filter((c) => c.name === 'svc_refresh');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/v1/auth' });
    expect(await page.evaluate(() => document.cookie)).not.toContain('svc_refresh');

    // A reload starts with no token: the refresh cookie restores the session, on the same page.
    // A second tab opened at the same moment refreshes too: the tabs take turns with the one cookie
    // (two refreshes with one token would read as theft and end the session).
    const secondTab = await context.newPage();
    await Promise.all([page.reload(), secondTab.goto(websitesUrl)]);
    for (const tab of [page, secondTab]) await tab.getByRole('row', { name: /blog\.fieldnotes\.example/ }).waitFor();
    expect(page.url()).toBe(websitesUrl);
    await secondTab.close();

    // 360 px wide: nothing runs off the side of the screen.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);

    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await heading('Sign in to nodectl').waitFor();
    expect((await context.cookies()).filter((c) => c.name === 'svc_refresh')).toEqual([]);
    await page.reload();
    await heading('Sign in to nodectl').waitFor();

    expect(browser.faults()).toEqual([]);
    console.log(`console: first usable page (sign-in form shown) ${firstUsableMs.toFixed(0)} ms after navigation`);
  });

  it('the page refuses an inline script (the CSP holds), and the check above sees the violation', async () => {
    const before = reported.length;
    const violation = page.waitForEvent('console', {
      predicate: (message) => message.text().startsWith('CSP violation'),
    });
    const ran = await page.evaluate(() => {
      const script = document.createElement('script');
      script.textContent = 'document.body.dataset.inline = "ran"';
      document.body.append(script);
      return document.body.dataset.inline ?? 'refused';
    });
    expect(ran).toBe('refused');
    await violation;
    expect(reported.slice(before).some((line) => /CSP violation: script-src/.test(line))).toBe(true);
  });

  it('asks for the code of the authenticator app when the account has two-factor sign-in', async () => {
    const email = 'second-factor@fieldnotes.example';
    await withControlDb(daemon.dataDir, async (db) => {
      await createUser(db, { email, password: PASSWORD });
      createOrganization(db, { name: 'Two Factor Org', ownerEmail: email, plan: 'pro' });
    });
    const { accessToken } = await post('/v1/auth/login', { email, password: PASSWORD });
    const { secret } = await post('/v1/auth/2fa/setup', undefined, accessToken);
    const activatedAt = Date.now();
    await post('/v1/auth/2fa/activate', { code: totp(secret, activatedAt) }, accessToken);

    await page.goto(`${daemon.url}/console/`);
    await heading('Sign in to nodectl').waitFor();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    const code = page.getByLabel('Code from your authenticator app');
    await code.waitFor();
    // Each code works once: the next step's (one step of skew is accepted), as the API test does.
    await code.fill(totp(secret, activatedAt + 30_000));
    await page.getByRole('button', { name: 'Verify and sign in' }).click();
    await heading('Organizations').waitFor();
    await page.getByRole('link', { name: 'Two Factor Org' }).waitFor();
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await heading('Sign in to nodectl').waitFor();
  });

  it('sign out everywhere ends every session of the user, not only this browser', async () => {
    // Another device: a session of the same user from this process, with its own refresh token.
    const elsewhere = await post('/v1/auth/login', { email: EMAIL, password: PASSWORD });
    await page.goto(`${daemon.url}/console/`);
    await heading('Sign in to nodectl').waitFor();
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading('Organizations').waitFor();
    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await heading('Sign in to nodectl').waitFor();
    const refreshed = await fetch(`${daemon.url}/v1/auth/refresh`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refreshToken: elsewhere.refreshToken }),
    });
    expect(refreshed.status).toBe(401);
    await page.reload();
    await heading('Sign in to nodectl').waitFor();
  });
});
