#!/usr/bin/env node
// Remakes the screenshots in docs/console.md: a daemon on a fresh data directory with one owner
// and organization, Debian's Chromium (scripts/ensure-test-tools.sh) driven by playwright-core.
// Run: npm run build && node scripts/console-screenshots.mjs
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin', 'nodectl');
const EMAIL = 'owner@fieldnotes.example';
const PASSWORD = 'a long console password';
const dataDir = mkdtempSync(join(tmpdir(), 'nodectl-screenshots-'));
const env = { ...process.env, NODECTL_LOG_LEVEL: 'warn' };
const admin = (...args) => execFileSync(BIN, ['--data-dir', dataDir, 'admin', ...args], { env });
admin('user', 'create', '--email', EMAIL, '--password', PASSWORD);
admin('org', 'create', '--name', 'Field Notes', '--owner', EMAIL, '--plan', 'pro');

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
try {
  for (const [device, viewport] of [
    ['desktop', { width: 1100, height: 620 }],
    ['phone', { width: 360, height: 740 }],
  ]) {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    const heading = (name) => page.getByRole('heading', { level: 1, name }).waitFor();
    await page.goto(`${url}/console/`);
    await heading('Sign in to nodectl');
    if (device === 'desktop') await page.screenshot({ path: shot('sign-in') });
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await heading('Organizations');
    if (device === 'desktop') {
      await page.screenshot({ path: shot('organizations') });
    }
    await page.getByRole('link', { name: /Field Notes/ }).click();
    await heading(/Websites/);
    if (device === 'desktop')
      for (const [domain, name] of [
        ['blog.fieldnotes.example', 'Field Notes blog'],
        ['shop.fieldnotes.example', 'Field Notes shop'],
      ]) {
        await page.getByLabel('Domain').fill(domain);
        await page.getByLabel('Name', { exact: true }).fill(name);
        await page.getByRole('button', { name: 'Add website' }).click();
        await page.getByRole('row', { name: new RegExp(domain.replace(/\./g, '\\.')) }).waitFor();
      }
    else await page.getByText('shop.fieldnotes.example').waitFor();
    await page.screenshot({ path: shot(`websites-${device}`), fullPage: device === 'phone' });
    await context.close();
  }
} finally {
  await browser.close();
  daemon.kill('SIGTERM');
  rmSync(dataDir, { recursive: true, force: true });
}
