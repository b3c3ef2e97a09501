import type { Browser, Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createPlatform, type Platform } from './helpers/api.js';
import { launchBrowser, newPage, shot } from './helpers/browser.js';
import { signIn } from './helpers/dashboard-wallet.js';

const baseUrl = inject('baseUrl');

const box = async (l: Locator) => {
  const b = await l.boundingBox();
  expect(b, 'the control is on screen').not.toBeNull();
  return { top: b!.y, bottom: b!.y + b!.height, height: b!.height };
};

/** Each control's label tops and control bottoms, within a pixel of the first's. */
async function expectOneLine(controls: Locator[], labels: Locator[]) {
  const c = await Promise.all(controls.map(box));
  const l = await Promise.all(labels.map(box));
  for (const x of c) {
    expect(Math.abs(x.bottom - c[0]!.bottom)).toBeLessThan(1.5);
    expect(Math.abs(x.top - c[0]!.top)).toBeLessThan(1.5);
    expect(Math.abs(x.height - c[0]!.height)).toBeLessThan(1.5);
  }
  for (const x of l) expect(Math.abs(x.top - l[0]!.top)).toBeLessThan(1.5);
}

/** Issue point "Polish": filter rows and the test clock card line their labels and inputs up, same heights. */
describe('dashboard forms: one baseline', () => {
  let browser: Browser;
  let platform: Platform;

  beforeAll(async () => {
    browser = await launchBrowser();
    platform = await createPlatform(baseUrl, { name: 'Level Lines', feeBps: 200, reserveBps: 1000 });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('request log filters: method, status and path share a top and a bottom edge and a height', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, baseUrl, platform.email);
    await page.goto(`${baseUrl}/dashboard/developers/logs`);
    const row = page.getByRole('group', { name: 'Filter requests' });
    await row.getByLabel('Method').waitFor();
    const names = ['Method', 'Status', 'Path'];
    await expectOneLine(names.map((n) => row.getByLabel(n)), names.map((n) => row.locator('label', { hasText: n })));
    const find = page.getByRole('search', { name: 'Find a request' });
    await expectOneLine([find.getByLabel('Request ID'), find.getByRole('button', { name: 'Find' })], []);
    await shot(page, 'form-alignment-1-logs');
    await context.close();
  });

  it('test clock card: the advance buttons, the custom hours input and its button share a top and a bottom edge', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, baseUrl, platform.email);
    await page.goto(`${baseUrl}/dashboard/balances`);
    const clock = page.getByRole('region', { name: 'Test clock' });
    await clock.getByLabel('Custom (hours)').waitFor();
    const group = clock.getByRole('group', { name: "Advance the chain's time" });
    await expectOneLine([group.getByLabel('Custom (hours)'), group.getByRole('button', { name: 'Advance 1 hour' }), group.getByRole('button', { name: 'Advance', exact: true })], []);
    await shot(page, 'form-alignment-2-test-clock');
    await context.close();
  });
});
