import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMember } from '../../src/control/records/member-rows.js';
import { createOrganization } from '../../src/control/records/organizations.js';
import { createUser } from '../../src/control/records/users.js';
import { createWebsite } from '../../src/control/records/websites.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { openBrowser, seriousAccessibilityViolations, type TestBrowser } from '../helpers/browser.js';
import { withControlDb } from '../helpers/seed.js';

/**
 * The organization pages of the console (members, API keys, plan and usage, audit log, rename) in
 * Chromium against a real daemon, as an owner and as a viewer use them (docs/console.md).
 */
const PASSWORD = 'a long console password';
const OWNER = 'owner@fieldnotes.example';
const VIEWER = 'viewer@fieldnotes.example';
const COLLEAGUE = 'colleague@fieldnotes.example';
const LEAVER = 'leaver@fieldnotes.example';
const NEWCOMER = 'newcomer@fieldnotes.example';
const UNWANTED = 'unwanted@fieldnotes.example';

let daemon: TestDaemon;
let browser: TestBrowser;
let page: Page;
let orgId: string;
/** A second organization of the owner, on the free plan, whose one website fills its quota. */
let fullOrgId: string;

beforeAll(async () => {
  daemon = await startTestDaemon();
  orgId = await withControlDb(daemon.dataDir, async (db) => {
    for (const email of [OWNER, VIEWER, COLLEAGUE, LEAVER]) await createUser(db, { email, password: PASSWORD });
    const org = createOrganization(db, { name: 'Field Notes', ownerEmail: OWNER, plan: 'pro' });
    const userId = (email: string) =>
      (db.prepare('SELECT id FROM users WHERE email = ?').get(email) as { id: string }).id;
    addMember(db, { organizationId: org.id, userId: userId(VIEWER), role: 'viewer' }, Date.now());
    const full = createOrganization(db, { name: 'Small Shop', ownerEmail: OWNER, plan: 'free' });
    createWebsite(db, { organizationId: full.id, domain: 'shop.fieldnotes.example', name: 'Shop' });
    fullOrgId = full.id;
    return org.id;
  });
  browser = await openBrowser();
  page = browser.page;
});

afterAll(async () => {
  await browser?.close();
  await daemon?.stop();
});

/** A call from the test's own process, as a script with a token or an API key would make it. */
async function api(path: string, headers: Record<string, string> = {}, init: RequestInit = {}) {
  const res = await fetch(`${daemon.url}${path}`, { ...init, headers: { ...headers, ...init.headers } });
  return { status: res.status, body: (await res.json()) as any };
}

async function ownerToken(): Promise<string> {
  const { body } = await api(
    '/v1/auth/login',
    { 'content-type': 'application/json' },
    {
      method: 'POST',
      body: JSON.stringify({ email: OWNER, password: PASSWORD }),
    },
  );
  return body.data.accessToken;
}

const heading = (name: string | RegExp) => page.getByRole('heading', { level: 1, name });
const orgPage = (section: string) => `${daemon.url}/console/organizations/${orgId}/${section}`;

/** What every page must hold: no serious axe violation, no CSP fault or page error, nothing wider than 360 px. */
async function pageIsSound() {
  expect(await seriousAccessibilityViolations(page)).toEqual([]);
  expect(browser.faults()).toEqual([]);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
}

async function signIn(email: string) {
  await browser.context.clearCookies(); // whoever was signed in before, this tab starts signed out
  await page.goto(`${daemon.url}/console/`);
  await heading('Sign in to nodectl').waitFor();
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await heading('Organizations').waitFor();
}

describe('the organization pages in Chromium', () => {
  it('an owner renames the organization from the list, and starts and cancels a transfer', async () => {
    await signIn(OWNER);
    await page.getByText('Settings of Field Notes').click();
    await pageIsSound();
    await page.getByLabel('New name of Field Notes').fill('Field Notes Co');
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByRole('link', { name: 'Field Notes Co' }).waitFor();
    expect(await page.getByRole('status').first().textContent()).toContain('the slug stays field-notes');

    // The owner starts a transfer and cancels it; a second cancel has nothing to cancel, and the API says so.
    await page.getByLabel('Email of the new owner of Field Notes Co').fill('buyer@fieldnotes.example');
    await page.getByRole('button', { name: 'Start the transfer' }).click();
    await page.getByRole('status').filter({ hasText: 'A transfer mail went to buyer@fieldnotes.example' }).waitFor();
    await page.getByRole('button', { name: 'Cancel a pending transfer' }).click();
    await page.getByRole('status').filter({ hasText: 'is cancelled' }).waitFor();
    await page.getByRole('button', { name: 'Cancel a pending transfer' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: 'No transfer of this organization waits for acceptance' })
      .waitFor();
    await pageIsSound();
  });

  it('an owner invites members, withdraws an invitation, changes a role, removes one, and a refusal shows the API message', async () => {
    await page.goto(orgPage('members'));
    await heading('Members of Field Notes Co').waitFor();
    await page.getByRole('row', { name: new RegExp(VIEWER) }).waitFor();
    await pageIsSound();

    // An address with an account joins at once.
    await page.getByLabel('Email address').fill(COLLEAGUE);
    await page.getByLabel(/^Role/).selectOption({ label: 'Viewer' });
    await page.getByRole('button', { name: 'Invite', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'is a member now' }).waitFor();
    const colleague = page.getByRole('row', { name: new RegExp(COLLEAGUE) });
    await colleague.waitFor();
    expect(await colleague.getByRole('cell').nth(1).textContent()).toBe('Viewer');

    await page.getByLabel(`New role of ${COLLEAGUE}`).selectOption({ label: 'Editor' });
    await page.getByRole('button', { name: `Change the role of ${COLLEAGUE}` }).click();
    await expect.poll(() => colleague.getByRole('cell').nth(1).textContent()).toBe('Editor');

    // An address without an account is invited by mail, and its invitation holds a seat.
    await page.getByLabel('Email address').fill(NEWCOMER);
    await page.getByRole('button', { name: 'Invite', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'an invitation mail went out' }).waitFor();
    await page.getByText('1 by pending invitation').waitFor();
    const invitations = page.getByRole('table', { name: 'Invitations waiting for their address' });
    await invitations.getByRole('row', { name: new RegExp(NEWCOMER) }).waitFor();

    // A second invitation appears as pending; withdrawn (after the question), it goes and frees its seat.
    await page.getByLabel('Email address').fill(UNWANTED);
    await page.getByRole('button', { name: 'Invite', exact: true }).click();
    const unwanted = invitations.getByRole('row', { name: new RegExp(UNWANTED) });
    await unwanted.waitFor();
    expect(await unwanted.getByRole('cell').nth(2).textContent()).toContain(`by ${OWNER}`);
    await page.getByText('2 by pending invitations').waitFor();
    await pageIsSound();
    await page.getByRole('button', { name: `Withdraw the invitation of ${UNWANTED}` }).click();
    await page.getByRole('button', { name: 'Yes, withdraw' }).click();
    await expect.poll(() => unwanted.count()).toBe(0);
    await page.getByText('1 by pending invitation').waitFor();
    const pendingNow = await api(`/v1/organizations/${orgId}/invitations`, {
      authorization: `Bearer ${await ownerToken()}`,
    });
    expect(pendingNow.body.data.items.map((i: { email: string }) => i.email)).toEqual([NEWCOMER]);
    await pageIsSound();

    // Removing asks first (the leaver joined through the page, so the audit log has the address).
    await page.getByLabel('Email address').fill(LEAVER);
    await page.getByLabel(/^Role/).selectOption({ label: 'Editor' });
    await page.getByRole('button', { name: 'Invite', exact: true }).click();
    await page.getByRole('row', { name: new RegExp(LEAVER) }).waitFor();
    // With the keyboard alone: the focus moves to the confirming button when the question appears.
    await page.getByRole('button', { name: `Remove ${LEAVER}` }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Yes, remove');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByRole('row', { name: new RegExp(LEAVER) }).count()).toBe(0);

    // The last owner cannot step down: the API says why, and the page shows it.
    await page.getByLabel(`New role of ${OWNER}`).selectOption({ label: 'Viewer' });
    await page.getByRole('button', { name: `Change the role of ${OWNER}` }).click();
    const refusal = page.getByRole('alert');
    await refusal.waitFor();
    expect(await refusal.textContent()).toMatch(/owner/i);
    await pageIsSound();
  });

  it('creates an API key shown once, which works against the API until it is revoked', async () => {
    await page.goto(orgPage('api-keys'));
    await heading('API keys of Field Notes Co').waitFor();
    await page.getByText('No API keys yet.').waitFor();
    await pageIsSound();

    await page.getByLabel('Name').fill('CI deploy');
    await page.getByLabel('Role').selectOption({ label: 'Viewer' });
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = page.getByRole('region', { name: 'The new key “CI deploy”' });
    await secret.waitFor();
    expect(await secret.textContent()).toContain('you will not see it again');
    const key = (await secret.locator('code').textContent())!;
    expect(key).toMatch(/^nk_live_\w{32}$/);
    await page.getByRole('row', { name: /CI deploy/ }).waitFor();
    await pageIsSound();

    const withKey = await api(`/v1/organizations/${orgId}`, { 'x-api-key': key });
    expect(withKey.status).toBe(200);
    expect(withKey.body.data.role).toBe('viewer');

    await page.getByRole('button', { name: 'I have saved it' }).click();
    await expect.poll(() => page.getByText(key).count()).toBe(0);
    await page.getByRole('button', { name: 'Revoke CI deploy' }).click();
    await page.getByRole('button', { name: 'Yes, revoke' }).click();
    await page
      .getByRole('row', { name: /CI deploy/ })
      .getByText(/^Revoked/)
      .waitFor();
    expect((await api(`/v1/organizations/${orgId}`, { 'x-api-key': key })).status).toBe(401);
    await pageIsSound();
  });

  it('the plan page shows the numbers the API answers, and how the plan is changed', async () => {
    await page.goto(orgPage('plan'));
    await heading('Plan and usage of Field Notes Co').waitFor();
    await page.getByRole('cell').first().waitFor();
    await page.getByRole('list', { name: 'Limits of the plan' }).waitFor();
    const token = { authorization: `Bearer ${await ownerToken()}` };
    const entitlements = (await api(`/v1/organizations/${orgId}/entitlements`, token)).body.data;
    const usage = (await api(`/v1/organizations/${orgId}/usage`, token)).body.data;

    expect(await page.getByText('Plan: Pro').count()).toBe(1);
    expect(await page.getByText(`nodectl admin org set-plan --org ${orgId}`).count()).toBe(1);
    const quotas = page.getByRole('list', { name: 'Limits of the plan' }).getByRole('listitem');
    expect(await quotas.count()).toBe(Object.keys(entitlements.limits).length);
    for (const [name, quota] of Object.entries(entitlements.limits) as [string, { used: number; limit: number }][]) {
      const meter = page.locator(`#quota-${name}`);
      expect(Number(await meter.getAttribute('value'))).toBe(quota.used);
      expect(Number(await meter.getAttribute('max'))).toBe(quota.limit);
      const figures = `${quota.used.toLocaleString('en-US')} of ${quota.limit.toLocaleString('en-US')}`;
      expect(await page.locator(`li:has(#quota-${name}) .quota-figures`).textContent()).toContain(figures);
    }
    // members: the owner, the viewer, the colleague and the newcomer's invitation.
    expect(entitlements.limits.members.used).toBe(4);

    const counts = await page
      .locator('tbody tr')
      .evaluateAll((rows) => rows.map((row) => Number(row.querySelector('td')!.textContent!.replace(/,/g, ''))));
    const metrics = Object.keys(usage.usage);
    expect(counts).toHaveLength(metrics.length);
    metrics.forEach((metric, i) => {
      // The page's own calls are counted after its answer: only api_requests may have grown since.
      if (metric === 'api_requests') expect(counts[i]).toBeLessThanOrEqual(usage.usage[metric]);
      else expect(counts[i]).toBe(usage.usage[metric]);
    });
    await pageIsSound();

    // A quota at its limit is said in words, with what to do.
    await page.goto(`${daemon.url}/console/organizations/${fullOrgId}/plan`);
    await heading('Plan and usage of Small Shop').waitFor();
    await page.getByRole('status').filter({ hasText: 'Websites: 1 of 1, limit reached' }).waitFor();
    expect(await page.locator('#quota-websites').getAttribute('value')).toBe('1');
    await pageIsSound();
  });

  it('the audit log shows what was just done, in words', async () => {
    await page.goto(orgPage('audit'));
    await heading('Audit log of Field Notes Co').waitFor();
    const entries = page.getByRole('list', { name: 'Audit entries, newest first' }).getByRole('listitem');
    await entries.first().waitFor();
    const texts = await entries.allTextContents();
    const expected = [
      /owner@fieldnotes\.example revoked an API key: CI deploy/,
      /owner@fieldnotes\.example created an API key: CI deploy.*as Viewer/,
      /removed a member: leaver@fieldnotes\.example.*was Editor/,
      /added a member: leaver@fieldnotes\.example.*as Editor/,
      /withdrew an invitation: unwanted@fieldnotes\.example.*as Viewer/,
      /invited an address: unwanted@fieldnotes\.example.*as Viewer/,
      /invited an address: newcomer@fieldnotes\.example.*as Viewer/,
      /changed a member's role: colleague@fieldnotes\.example.*from Viewer to Editor/,
      /added a member: colleague@fieldnotes\.example/,
      /cancelled the transfer/,
      /started a transfer of the organization/,
      /renamed the organization: Field Notes Co.*from “Field Notes” to “Field Notes Co”/,
    ];
    // Newest first: each action appears, in the order it was done.
    const positions = expected.map((pattern) => texts.findIndex((text) => pattern.test(text)));
    expect(positions, texts.join('\n')).not.toContain(-1);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    await pageIsSound();
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await heading('Sign in to nodectl').waitFor();
  });

  it('a viewer reads members and the plan, and is offered no admin action', async () => {
    await signIn(VIEWER);
    await page.getByRole('link', { name: 'Field Notes Co' }).waitFor();
    expect(await page.getByText('Settings of Field Notes Co').count()).toBe(0);
    await pageIsSound();

    await page.goto(orgPage('members'));
    await heading('Members of Field Notes Co').waitFor();
    await page.getByRole('row', { name: new RegExp(COLLEAGUE) }).waitFor();
    expect(await page.getByText('Your role: Viewer.').count()).toBe(1);
    expect(await page.getByRole('heading', { name: 'Invite a member' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Remove|Change the role|^Withdraw/ }).count()).toBe(0);
    expect(await page.getByRole('heading', { name: 'Pending invitations' }).count()).toBe(0);
    expect(await page.getByRole('combobox').count()).toBe(0);
    await pageIsSound();

    await page.goto(orgPage('api-keys'));
    await page.getByText('does not manage API keys').waitFor();
    expect(await page.getByRole('button', { name: 'Create key' }).count()).toBe(0);
    await pageIsSound();

    await page.goto(orgPage('audit'));
    await page.getByText('does not read the audit log').waitFor();
    await pageIsSound();

    await page.goto(orgPage('plan'));
    await page.getByText('Plan: Pro').waitFor();
    await pageIsSound();
  });
});
