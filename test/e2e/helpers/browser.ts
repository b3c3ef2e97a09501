import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOTS = path.resolve(import.meta.dirname, '../../../test-results/screenshots');

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
  });
}

/**
 * Every Content-Security-Policy violation a page of this test file reported: Chromium's own console line
 * ("Refused to …") and the page's `securitypolicyviolation` event. test/e2e/setup.ts asserts, after each test of
 * every e2e file, that there was none, so each wallet flow is also a CSP test.
 */
export const cspViolations: string[] = [];
const CSP_MESSAGE = /Content Security Policy|Refused to|securitypolicyviolation/i;

export async function newPage(browser: Browser, opts: { mobile?: boolean } = {}): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext(
    opts.mobile
      ? { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true }
      : { viewport: { width: 1280, height: 860 }, deviceScaleFactor: 1 },
  );
  context.setDefaultTimeout(20_000);
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      console.error(`securitypolicyviolation: ${e.effectiveDirective} blocked ${e.blockedURI || '(inline)'} at ${e.sourceFile}:${e.lineNumber}`);
    });
  });
  const page = await context.newPage();
  page.on('pageerror', (err) => console.error(`[page error] ${err.message}`));
  page.on('console', (msg) => {
    if (CSP_MESSAGE.test(msg.text())) cspViolations.push(`${page.url()}: ${msg.text()}`);
    if (msg.type() === 'error' && process.env.E2E_VERBOSE) console.error(`[console] ${msg.text()}`);
  });
  return { context, page };
}

/** Saves test-results/screenshots/<name>.png (git-ignored), after fonts and animations settle. */
export async function shot(page: Page, name: string, opts: { fullPage?: boolean } = {}) {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.evaluate(() => document.fonts.ready).catch(() => undefined);
  await page.waitForTimeout(250);
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: opts.fullPage ?? true, animations: 'disabled' });
}
