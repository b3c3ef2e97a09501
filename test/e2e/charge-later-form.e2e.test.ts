import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createPlatform, expectStatus, randomAddress, uniq, type Platform } from './helpers/api.js';
import { launchBrowser, newPage, shot } from './helpers/browser.js';
import { signIn } from './helpers/dashboard-wallet.js';

const baseUrl = inject('baseUrl');

type Order = { id: string; order_no: string; state: string; capture_method: string; capture_before: string | null; deadline_at: string; eip712: { message: Record<string, string> } };
type List<T> = { data: T[] };

/**
 * The dashboard's create forms offer charge later: the New order and New checkout link dialogs send
 * capture_method "manual" with capture_within_seconds from a window in hours or days, refuse out-of-range windows
 * before any request, show the API's refusal under the field it names, work from the keyboard and fit at 390 px.
 */
describe('dashboard: charge later from the create forms', () => {
  let browser: Browser;
  let platform: Platform;
  let merchantId: string;
  const orderCount = async () => (await expectStatus<List<Order>>(platform.api('GET', '/v1/orders?limit=100'), 200)).data.length;

  beforeAll(async () => {
    browser = await launchBrowser();
    platform = await createPlatform(baseUrl, { name: 'Harbor Rentals', feeBps: 250, reserveBps: 1000 });
    merchantId = uniq('boats_');
    await expectStatus(platform.api('POST', '/v1/onboarding/merchants', { external_id: merchantId, name: 'Harbor Boats', merchant_wallet: randomAddress(), chain_id: 84532, reserve_bps: 1000 }), 201);
  });
  afterAll(async () => {
    await browser?.close();
  });

  const openNewOrder = async (page: Page) => {
    await page.goto(`${baseUrl}/dashboard/orders`);
    await page.getByRole('button', { name: 'New order' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'New order' });
    await dialog.getByLabel('Merchant', { exact: true }).selectOption(merchantId);
    return dialog;
  };
  const chargeLater = (dialog: Locator) => dialog.getByRole('checkbox', { name: /^Charge later/ });

  it('creates a charge-later order (keyboard only for the control), refusing a window over 30 days first; the list and the page show it manual', async () => {
    // An automatic order made the old way, for the list below.
    const plain = await expectStatus<Order>(platform.api('POST', '/v1/orders', { merchant_id: merchantId, order_no: uniq('HB-'), chain_id: 84532, token: 'USDC', amount: '5.00' }), 201);
    const { context, page } = await newPage(browser);
    await signIn(page, baseUrl, platform.email);
    const dialog = await openNewOrder(page);
    const orderNo = uniq('HB-');
    await dialog.getByLabel('Order number').fill(orderNo);
    await dialog.getByLabel('Amount').fill('120.00');
    expect(await dialog.getByLabel('Capture window').count()).toBe(0);

    // Keyboard: Tab from the network to the checkbox, Space turns it on, Tab reaches the window it revealed.
    await dialog.getByLabel('Network').focus();
    await page.keyboard.press('Tab');
    expect(await chargeLater(dialog).evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await chargeLater(dialog).getAttribute('aria-expanded')).toBe('false');
    await page.keyboard.press('Space');
    expect(await chargeLater(dialog).isChecked()).toBe(true);
    expect(await chargeLater(dialog).getAttribute('aria-expanded')).toBe('true');
    await page.keyboard.press('Tab');
    const within = dialog.getByLabel('Capture window');
    expect(await within.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(await within.inputValue()).toBe('7');
    expect(await dialog.getByLabel('Unit').inputValue()).toBe('days');
    await dialog.getByText('From 1 hour to 30 days (720 hours) after the payment deadline; default 7 days.').waitFor();
    expect(await dialog.locator('label', { hasText: 'Charge later' }).textContent()).toBe('Charge later (authorize now, capture within 7 days)');

    // 31 days: refused in the form, no request made.
    const before = await orderCount();
    await within.fill('31');
    await dialog.getByRole('button', { name: 'Create order' }).click();
    await dialog.getByText('At most 30 days (720 hours).').waitFor();
    expect(await within.getAttribute('aria-invalid')).toBe('true');
    expect(await orderCount()).toBe(before);
    await shot(page, 'charge-later-form-1-refused', { fullPage: false });

    // 36 hours.
    await within.fill('36');
    await dialog.getByLabel('Unit').selectOption('hours');
    await dialog.locator('label', { hasText: 'Charge later (authorize now, capture within 36 hours)' }).waitFor();
    await shot(page, 'charge-later-form-2-filled', { fullPage: false });
    await dialog.getByRole('button', { name: 'Create order' }).click();
    await page.getByText(`Order ${orderNo}`, { exact: true }).waitFor();
    const details = page.locator('.dl-row').filter({ has: page.locator('dt', { hasText: /^Capture$/ }) });
    expect(await details.textContent()).toContain('Manual (charge later)');
    await page.getByText("Charge later: the buyer's payment will only be authorized").waitFor();
    const orderId = new URL(page.url()).pathname.split('/').pop()!;
    const order = await expectStatus<Order>(platform.api('GET', `/v1/orders/${orderId}`), 200);
    expect(order).toMatchObject({ order_no: orderNo, amount: '120.00', state: 'pending_payment', capture_method: 'manual' });
    // capture_before = the signed deadline (whole seconds) + 36 h, and it is what the buyer signs as captureDeadline.
    expect(Date.parse(order.capture_before!)).toBe(Math.floor(Date.parse(order.deadline_at) / 1000) * 1000 + 36 * 3_600_000);
    expect(Number(order.eip712.message.captureDeadline) * 1000).toBe(Date.parse(order.capture_before!));
    await shot(page, 'charge-later-form-3-detail');

    // The list marks it; the automatic order is not marked.
    await page.getByRole('link', { name: '← Orders' }).click();
    const table = page.getByRole('table', { name: 'Orders' });
    const row = table.locator('tr', { hasText: orderNo });
    await row.waitFor();
    expect(await row.locator('td').nth(1).textContent()).toBe('Pending payment Charge later');
    expect(await table.locator('tr', { hasText: plain.order_no }).locator('td').nth(1).textContent()).toBe('Pending payment');
    await context.close();
  });

  it('shows the API\'s refusal under the field it names, and makes nothing', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, baseUrl, platform.email);
    // A request altered on its way (as an older form or a proxy might send it): the API's 422 names capture_within_seconds.
    await page.route('**/v1/orders', async (route) => {
      const req = route.request();
      if (req.method() !== 'POST') return route.fallback();
      await route.continue({ postData: JSON.stringify({ ...req.postDataJSON(), capture_within_seconds: 60 }) });
    });
    const dialog = await openNewOrder(page);
    await dialog.getByLabel('Order number').fill(uniq('HB-'));
    await dialog.getByLabel('Amount').fill('9.00');
    await chargeLater(dialog).check();
    const before = await orderCount();
    await dialog.getByRole('button', { name: 'Create order' }).click();
    const within = dialog.getByLabel('Capture window');
    await expect.poll(() => within.getAttribute('aria-invalid')).toBe('true');
    const message = await dialog.locator('.field-error').first().textContent();
    expect(message).toMatch(/3600/); // zod's minimum, as the API words it
    expect(await orderCount()).toBe(before);
    expect(await dialog.isVisible()).toBe(true);
    await context.close();
  });

  it('a charge-later checkout link: the session\'s order is manual with the chosen window', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, baseUrl, platform.email);
    await page.goto(`${baseUrl}/dashboard/orders`);
    await page.getByRole('button', { name: 'New checkout link' }).click();
    const dialog = page.getByRole('dialog', { name: 'New checkout link' });
    await dialog.getByLabel('Merchant', { exact: true }).selectOption(merchantId);
    await dialog.getByLabel('Order number').fill(uniq('HL-'));
    await dialog.getByLabel('Amount').fill('42.00');
    await chargeLater(dialog).check();
    await dialog.getByLabel('Capture window').fill('2');
    await dialog.getByRole('button', { name: 'Create link' }).click();
    const url = await page.getByRole('dialog', { name: 'Checkout link created' }).getByLabel('Checkout link').inputValue();
    const token = new URL(url).pathname.split('/').pop()!;
    const session = await expectStatus<{ expires_at: string; order: Order }>(platform.api('GET', `/v1/checkout/sessions/${token}`), 200);
    expect(session.order.capture_method).toBe('manual');
    expect(Date.parse(session.order.capture_before!)).toBe(Math.floor(Date.parse(session.order.deadline_at) / 1000) * 1000 + 2 * 86_400_000);
    await context.close();
  });

  it('390 px: the New order dialog with charge later on fits without sideways scrolling', async () => {
    // With the devnet's chain clock moved, the top bar carries 'Chain clock +40 d' beside the devnet badge: it must fit too.
    await expectStatus(platform.api('POST', '/v1/test_helpers/advance_time', { seconds: 40 * 86_400 }), 200);
    const { context, page } = await newPage(browser, { mobile: true });
    await page.setViewportSize({ width: 390, height: 844 });
    await signIn(page, baseUrl, platform.email);
    const dialog = await openNewOrder(page);
    await page.getByTestId('chain-clock-note').first().waitFor();
    await chargeLater(dialog).check();
    await dialog.getByLabel('Capture window').fill('999');
    await dialog.getByRole('button', { name: 'Create order' }).click();
    await dialog.getByText('At most 30 days (720 hours).').waitFor();
    const outside = await dialog.evaluate((modal) => {
      const box = modal.getBoundingClientRect();
      return [...modal.querySelectorAll('*')]
        .filter((el) => el.getBoundingClientRect().right > box.right + 1 || (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX === 'visible'))
        .map((el) => `${el.tagName.toLowerCase()}.${el.className}: ${(el.textContent ?? '').slice(0, 60)}`);
    });
    expect(outside).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth)).toBe(true);
    // The number and its unit stay side by side.
    const [a, b] = [await dialog.getByLabel('Capture window').boundingBox(), await dialog.getByLabel('Unit').boundingBox()];
    expect(Math.abs(a!.y - b!.y)).toBeLessThan(2);
    await shot(page, 'charge-later-form-4-phone', { fullPage: false });
    await context.close();
  });
});
