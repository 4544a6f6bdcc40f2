import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { makeTempDir } from './paths.js';

/**
 * Debian's Chromium (scripts/ensure-test-tools.sh installs it) driven by playwright-core, with a
 * fresh profile of its own: how the console's browser tests open the console (docs/console.md).
 */
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface TestBrowser {
  context: BrowserContext;
  page: Page;
  /** Every console message and page error the browser reported (CSP violations are announced there). */
  reported: string[];
  /** The reported lines that name a CSP violation or an uncaught page error: a test expects none. */
  faults(): string[];
  close(): Promise<void>;
}

/** Chromium at the narrowest width the console supports (360 px) unless told otherwise. */
export async function openBrowser(viewport = { width: 360, height: 740 }): Promise<TestBrowser> {
  const profile = makeTempDir('nodectl-chromium-');
  // A persistent context is how a fresh --user-data-dir of our own is given (launch() makes its own).
  const context = await chromium.launchPersistentContext(profile.dir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport,
  });
  // Announced in the page's console, so a violation shows whatever Chromium's own wording is.
  await context.addInitScript(() =>
    document.addEventListener('securitypolicyviolation', (event) =>
      console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`),
    ),
  );
  const page = context.pages()[0] ?? (await context.newPage());
  const reported: string[] = [];
  const listen = (tab: Page) => {
    tab.on('console', (message) => reported.push(`${message.type()}: ${message.text()}`));
    tab.on('pageerror', (error) => reported.push(`pageerror: ${error.message}`));
  };
  listen(page);
  context.on('page', listen);
  return {
    context,
    page,
    reported,
    faults: () => reported.filter((line) => /content security policy|CSP violation|pageerror/i.test(line)),
    async close() {
      await context.close();
      profile.cleanup();
    },
  };
}

let axeSource: string | undefined;

/** One violation axe-core found: its rule, impact, and the elements that break it. */
export interface AccessibilityViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/**
 * Runs axe-core (WCAG 2.x A and AA rules) on the page as it is now and returns its serious and
 * critical violations. The script goes in through the DevTools protocol, which the page's CSP
 * does not govern, so the console's policy stays as strict as users get it.
 */
export async function seriousAccessibilityViolations(page: Page): Promise<AccessibilityViolation[]> {
  axeSource ??= readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as any).axe;
    const result = await axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21aa'] } });
    return result.violations.map((v: any) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.map((n: any) => String(n.target)),
    }));
  });
  return (violations as AccessibilityViolation[]).filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
