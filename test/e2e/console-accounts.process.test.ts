import type { Page } from 'playwright-core';
import { encode } from 'uqr';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../src/control/records/organizations.js';
import { createUser } from '../../src/control/records/users.js';
import { qrPath } from '../../src/console/account-text.js';
import { openBrowser, type TestBrowser } from '../helpers/browser.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { withControlDb } from '../helpers/seed.js';
import {
  expectSoundPage,
  heading as headingOf,
  mailedLink as mailedLinkOf,
  signIn as signInAs,
  signOut as signOutOf,
  totp,
} from './console-steps.js';

/**
 * The console's account pages in Chromium against a real daemon whose appBaseUrl is its own
 * /console: sign up, the mailed links (read from the file outbox, opened in the browser),
 * password reset and change, two-factor setup with recovery codes, invitation and transfer links.
 */
const PASSWORD = 'a long console password';

let daemon: TestDaemon;
let browser: TestBrowser;
let page: Page;

beforeAll(async () => {
  daemon = await startTestDaemon({ appBasePath: '/console' });
  browser = await openBrowser();
  ({ page } = browser);
});

afterAll(async () => {
  await browser?.close();
  await daemon?.stop();
});

/** A JSON call from the test's own process, as the CLI would send it. */
async function api(method: string, path: string, body?: unknown, accessToken?: string): Promise<any> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (accessToken) headers.authorization = `Bearer ${accessToken}`;
  const res = await fetch(`${daemon.url}${path}`, { method, headers, body: JSON.stringify(body) });
  const answer = res.status === 204 ? {} : ((await res.json()) as any);
  if (!res.ok) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(answer)}`);
  return answer.data;
}

const heading = (name: string | RegExp) => headingOf(page, name);
const signIn = (email: string, password: string) => signInAs(page, email, password);
const signOut = () => signOutOf(page);
const mailedLink = (email: string, subject: string) => mailedLinkOf(daemon, email, subject);

/** Every page: no serious axe violation, no CSP fault, nothing wider than 360 px. */
const expectAccessible = () => expectSoundPage(page, browser);

describe('account pages of the console in Chromium', () => {
  const email = 'newcomer@fieldnotes.example';
  let newPassword = 'a brand new password';
  let secret = '';
  let activatedAt = 0;
  let recoveryCodes: string[] = [];

  it('signs up, opens the mailed verification link in the console and confirms the address with a button', async () => {
    await page.goto(`${daemon.url}/console/`);
    await heading('Sign in to nodectl').waitFor();
    await expectAccessible();
    await page.getByRole('link', { name: 'Create an account' }).click();
    await heading('Create your account').waitFor();
    await expectAccessible();

    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByLabel('Organization name').fill('Newcomer Notes');
    await page.getByRole('button', { name: 'Create account' }).click();
    await heading('Check your mail').waitFor();
    // The form is gone: the keyboard goes on from the new heading.
    await page.waitForFunction(() => document.activeElement?.tagName === 'H1');
    expect(await page.getByRole('status').textContent()).toContain(email);
    await expectAccessible();

    const link = await mailedLink(email, 'Confirm your email address');
    expect(link).toMatch(new RegExp(`^${daemon.url}/console/verify-email\\?token=`));
    await page.goto(link);
    await heading('Confirm your email address').waitFor();
    await expectAccessible();
    // Opening the link spends nothing: a mail scanner's visit must not use the token up.
    await page.reload();
    await page.getByRole('button', { name: 'Confirm my address' }).click();
    await page.getByText(`${email} is confirmed`).waitFor();
    await expectAccessible();

    // The same link a second time: the API says used, the page says what that means.
    await page.reload();
    await page.getByRole('button', { name: 'Confirm my address' }).click();
    expect(await page.getByRole('alert').textContent()).toMatch(/used already: the address is confirmed/);

    await page.getByRole('link', { name: 'Sign in' }).click();
    await signIn(email, PASSWORD);
    await heading('Organizations').waitFor();
    await page.getByRole('link', { name: 'Newcomer Notes' }).waitFor();
    await page.getByRole('link', { name: 'Account' }).click();
    await heading('Your account').waitFor();
    await page.getByText('Confirmed', { exact: true }).waitFor();
    await expectAccessible();
    await signOut();
  });

  it('forgot password: the mailed reset link opens the console, a new password typed twice, then sign in with it', async () => {
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await heading('Forgot your password?').waitFor();
    await expectAccessible();
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Mail me a reset link' }).click();
    expect(await page.getByRole('status').textContent()).toContain('If an account exists');
    await expectAccessible();

    const link = await mailedLink(email, 'Reset your password');
    expect(link).toMatch(new RegExp(`^${daemon.url}/console/reset-password\\?token=`));
    await page.goto(link);
    await heading('Choose a new password').waitFor();
    await expectAccessible();
    await page.getByLabel(/^New password(?! again)/).fill(newPassword);
    await page.getByLabel('New password again').fill('not the same password');
    await page.getByRole('button', { name: 'Set the new password' }).click();
    expect(await page.getByRole('alert').textContent()).toContain('The two passwords differ');
    await page.getByLabel('New password again').fill(newPassword);
    await page.getByRole('button', { name: 'Set the new password' }).click();

    await heading('Sign in to nodectl').waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/sign-in');
    expect(await page.getByRole('status').textContent()).toContain('Your new password is set');
    await signIn(email, PASSWORD);
    expect(await page.getByRole('alert').textContent()).toBeTruthy();
    await page.getByLabel('Password').fill(newPassword);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading('Organizations').waitFor();
  });

  it('turns two-factor sign-in on in the account page: the secret to type, the first code, recovery codes shown once', async () => {
    await page.getByRole('link', { name: 'Account' }).click();
    await heading('Your account').waitFor();
    await page.getByText(/^Off: signing in needs only the password/).waitFor();
    await page.getByRole('button', { name: 'Set up two-factor sign-in' }).click();
    const shown = page.locator('code.secret');
    await shown.waitFor();
    secret = (await shown.textContent())!.replace(/\s+/g, '');
    expect(await shown.textContent()).toMatch(/^([A-Z2-7]{4} )+[A-Z2-7]{1,4}$/);
    const otpauthUri = await page.getByRole('link', { name: 'open it in the authenticator app' }).getAttribute('href');
    expect(otpauthUri).toMatch(new RegExp(`^otpauth://totp/.*secret=${secret}`));
    // The QR code holds that same URI.
    const qr = page.getByRole('img', { name: 'QR code of the two-factor secret' });
    expect(await qr.locator('path').getAttribute('d')).toBe(qrPath(encode(otpauthUri!, { ecc: 'M', border: 4 }).data));
    await expectAccessible();

    await page.getByLabel('Code from your authenticator app').fill('000000');
    await page.getByRole('button', { name: 'Turn two-factor sign-in on' }).click();
    await page.getByRole('alert').waitFor();
    activatedAt = Date.now();
    await page.getByLabel('Code from your authenticator app').fill(totp(secret, activatedAt));
    await page.getByRole('button', { name: 'Turn two-factor sign-in on' }).click();

    const codes = page.getByRole('region', { name: 'Recovery codes' });
    await codes.waitFor();
    expect(await codes.textContent()).toContain('you will not see them again');
    // The focus moves to the codes in an effect, after they are drawn: waited for, as the other focus checks are.
    await page.waitForFunction(() => document.activeElement?.getAttribute('aria-label') === 'Recovery codes');
    recoveryCodes = await codes.locator('li code').allTextContents();
    expect(recoveryCodes).toHaveLength(10);
    await expectAccessible();
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: daemon.url });
    await codes.getByRole('button', { name: 'Copy all' }).click();
    await codes.getByText('Copied to the clipboard.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(recoveryCodes.join('\n'));
    await codes.getByRole('button', { name: 'I have saved them' }).click();
    await page.getByText('10 recovery codes left.', { exact: false }).waitFor();
    expect(await page.locator('.codes').count()).toBe(0);
    await signOut();
  });

  it('signs in with the authenticator code, then with a recovery code', async () => {
    await signIn(email, newPassword);
    const code = page.getByLabel('Code from your authenticator app');
    await code.waitFor();
    await expectAccessible();
    // Each code works once: the next step's (one step of skew is accepted).
    await code.fill(totp(secret, activatedAt + 30_000));
    await page.getByRole('button', { name: 'Verify and sign in' }).click();
    // Signed out on the account page, signed in again on it: sign-in keeps the address.
    await heading('Your account').waitFor();
    expect(new URL(page.url()).pathname).toBe('/console/account');
    await signOut();

    await signIn(email, newPassword);
    await page.getByRole('button', { name: 'Use a recovery code instead' }).click();
    await page.getByLabel('Recovery code').fill(recoveryCodes[0]!);
    await expectAccessible();
    await page.getByRole('button', { name: 'Verify and sign in' }).click();
    await heading('Your account').waitFor();
    await page.getByText('9 recovery codes left.', { exact: false }).waitFor();
  });

  it('makes new recovery codes and turns two-factor sign-in off, each with a recovery code', async () => {
    const renew = page.getByRole('form', { name: 'New recovery codes' });
    await renew.getByLabel('Code from your authenticator app, or a recovery code').fill(recoveryCodes[1]!);
    await renew.getByRole('button', { name: 'Make new recovery codes' }).click();
    const codes = page.getByRole('region', { name: 'Recovery codes' });
    await codes.waitFor();
    const renewed = await codes.locator('li code').allTextContents();
    expect(renewed).toHaveLength(10);
    expect(renewed).not.toContain(recoveryCodes[2]);
    await codes.getByRole('button', { name: 'I have saved them' }).click();

    // The earlier codes stopped working: the API's own words are shown.
    const off = page.getByRole('form', { name: 'Turn two-factor sign-in off' });
    await off.getByLabel('Code from your authenticator app, or a recovery code').fill(recoveryCodes[2]!);
    await off.getByRole('button', { name: 'Turn it off' }).click();
    await off.getByRole('alert').waitFor();
    await off.getByLabel('Code from your authenticator app, or a recovery code').fill(renewed[0]!);
    await off.getByRole('button', { name: 'Turn it off' }).click();
    expect(await page.getByRole('status').first().textContent()).toContain('Two-factor sign-in is off.');
    await page.getByText(/^Off: signing in needs only the password/).waitFor();
    await expectAccessible();
  });

  it('changes the password in the account page: every session ends, sign in again with the new one', async () => {
    await page.getByLabel('Current password').fill(newPassword);
    await page.getByLabel(/^New password(?! again)/).fill('the third password here');
    await page.getByLabel('New password again').fill('the third password here');
    await page.getByRole('button', { name: 'Change the password' }).click();
    await heading('Sign in to nodectl').waitFor();
    expect(await page.getByRole('status').textContent()).toContain('every session ended');
    newPassword = 'the third password here';
    await signIn(email, newPassword);
    await heading('Organizations').waitFor();
    await signOut();
  });
});

describe('invitation and transfer links of the console', () => {
  const owner = 'owner@transfers.example';
  let organizationId = '';
  let ownerToken = '';

  beforeAll(async () => {
    await withControlDb(daemon.dataDir, async (db) => {
      await createUser(db, { email: owner, password: PASSWORD });
      await createUser(db, { email: 'recipient@transfers.example', password: PASSWORD });
      organizationId = createOrganization(db, { name: 'Handed Over', ownerEmail: owner, plan: 'pro' }).id;
    });
    ownerToken = (await api('POST', '/v1/auth/login', { email: owner, password: PASSWORD })).accessToken;
  });

  it('an invitation link signed out asks to sign in, comes back to itself, and joins once the address is confirmed', async () => {
    const invitee = 'invitee@transfers.example';
    expect(
      await api('POST', `/v1/organizations/${organizationId}/members`, { email: invitee, role: 'editor' }, ownerToken),
    ).toMatchObject({ invitation: expect.anything() });
    const link = await mailedLink(invitee, 'Join Handed Over on nodectl');
    expect(link).toMatch(new RegExp(`^${daemon.url}/console/invitations/accept\\?token=`));
    await api('POST', '/v1/auth/register', { email: invitee, password: PASSWORD, orgName: 'Invitee Org' });

    await page.goto(link);
    await heading('Sign in to nodectl').waitFor();
    await page.getByText('You were invited to an organization').waitFor();
    await expectAccessible();
    await signIn(invitee, PASSWORD);
    await heading('Join an organization').waitFor();
    expect(page.url()).toBe(link);
    await page.getByText(/you join once .* is confirmed/).waitFor();
    await expectAccessible();

    await page.goto(await mailedLink(invitee, 'Confirm your email address'));
    await page.getByRole('button', { name: 'Confirm my address' }).click();
    await page.getByText(`${invitee} is confirmed`).waitFor();
    await expectAccessible();
    await page.goto(link);
    await heading('Join an organization').waitFor();
    await page.getByRole('link', { name: 'Handed Over' }).waitFor();
    expect(await page.getByRole('list', { name: 'Your organizations' }).textContent()).toContain('editor');
    await expectAccessible();
    await signOut();
  });

  it('a transfer link signed out asks to sign in as the recipient, then accepting makes them the owner', async () => {
    const recipient = 'recipient@transfers.example';
    await api('POST', `/v1/organizations/${organizationId}/transfer`, { email: recipient }, ownerToken);
    const link = await mailedLink(recipient, 'Take over the organization Handed Over');
    expect(link).toMatch(new RegExp(`^${daemon.url}/console/transfers/accept\\?token=`));

    await page.goto(link);
    await page.getByText('An organization is being transferred to you').waitFor();
    await expectAccessible();
    // The wrong account first: the API refuses it, the page says what to do.
    await signIn(owner, PASSWORD);
    await heading('Take over an organization').waitFor();
    await page.getByRole('button', { name: 'Accept the transfer' }).click();
    expect(await page.getByRole('alert').textContent()).toContain('mailed to another address');
    await signOut();

    expect(page.url()).toBe(link);
    await signIn(recipient, PASSWORD);
    await heading('Take over an organization').waitFor();
    await expectAccessible();
    await page.getByRole('button', { name: 'Accept the transfer' }).click();
    await page.getByText('You own Handed Over now.').waitFor();
    await page.getByRole('link', { name: 'Open Handed Over' }).click();
    await heading('Websites of Handed Over').waitFor();
    await expectAccessible();
  });
});
