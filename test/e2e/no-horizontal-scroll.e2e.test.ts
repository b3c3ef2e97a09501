import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createPlatform, expectStatus, randomAddress, uniq, type Platform } from './helpers/api.js';
import { launchBrowser, newPage, shot } from './helpers/browser.js';
import { dashboardChain, signIn, until } from './helpers/dashboard-wallet.js';

const baseUrl = inject('baseUrl');
const devnet = inject('devnet');
const chain = dashboardChain(devnet);
const BUYER = devnet.accounts[7]!;
const DASHBOARD_APP = path.resolve(import.meta.dirname, '../../web/src/pages/dashboard/DashboardApp.tsx');

type Order = { id: string; order_no: string; state: string; pay_to: string; eip712: { message: Record<string, unknown> }; signature: string };
type Session = { url: string; session_token: string };

/** Long values everywhere a table shows one: the widest a real platform would send. */
const LONG = 'x'.repeat(60);

/**
 * Every page of the dashboard router, with rows in its tables, at a laptop width and a phone width: the page
 * itself never scrolls sideways (a wide table scrolls inside its card). Plus the devnet badge and the
 * itemized / total-only fee display of the hosted page.
 */
describe('layout: no dashboard page scrolls sideways; devnet badge; fee display', () => {
  let browser: Browser;
  let platform: Platform;
  let merchantId: string;
  let order: Order;
  let endpointId: string;
  let session: Session;
  let refundId: string;
  let subscriptionId: string;
  let deliveryId: string;
  let eventId: string;
  let failedRequestId: string;

  beforeAll(async () => {
    browser = await launchBrowser();
    platform = await createPlatform(baseUrl, { name: `Very Long Platform Name Incorporated ${LONG}`, feeBps: 300, reserveBps: 1000 });
    merchantId = uniq(`merchant_${LONG}_`);
    const merchant = { external_id: merchantId, name: `Merchant With A Long Display Name ${LONG}`, merchant_wallet: randomAddress(), chain_id: 84532, reserve_bps: 1000 };
    await expectStatus(platform.api('POST', '/v1/onboarding/merchants', merchant), 201);
    await expectStatus(platform.api('POST', '/v1/merchants/invitations', { external_id: uniq(`invite_${LONG}_`), suggested_name: `Suggested ${LONG}`, chain_id: 84532, reserve_bps: 500 }), 201);
    const endpoint = await expectStatus<{ id: string }>(platform.api('POST', '/v1/webhooks/endpoints', { url: `http://127.0.0.1:9/hooks/${LONG}/${LONG}`, subscribed_events: ['*'], description: LONG }), 201);
    endpointId = endpoint.id;
    const create = (amount: string) => expectStatus<Order>(platform.api('POST', '/v1/orders', { merchant_id: merchantId, order_no: uniq(`ORDER-${LONG}-`), chain_id: 84532, token: 'USDC', amount, metadata: { note: LONG } }), 201);
    const paid = await create('12345.67');
    await create('0.93');
    await chain.payOrder(BUYER.private_key, paid);
    order = await until<Order>(platform.api, `/v1/orders/${paid.id}`, (o) => o.state === 'confirmed');
    // One refund the reserve covers, one that needs funding (more than the reserve left): both kinds of row.
    refundId = (await expectStatus<{ id: string }>(platform.api('POST', '/v1/refunds', { order_id: order.id, amount: '1.00', reason: LONG }), 201)).id;
    await expectStatus(platform.api('POST', '/v1/refunds', { order_id: order.id, amount: '5000.00', reason: LONG }), 201);
    subscriptionId = (await expectStatus<{ id: string }>(platform.api('POST', '/v1/subscriptions', { merchant_id: merchantId, chain_id: 84532, token: 'USDC', amount: '19.99', interval: 'month', metadata: { note: LONG } }), 201)).id;
    deliveryId = (await expectStatus<{ id: string }>(platform.api('POST', `/v1/webhooks/endpoints/${endpointId}/test`, {}), 201)).id;
    // The paid order's event: its payload carries the long metadata, its delivery the long endpoint URL.
    const confirmed = await until<{ data: { id: string; data: { object: { id?: string } } }[] }>(platform.api, '/v1/events?type=order.confirmed', (l) => l.data.some((e) => e.data.object.id === order.id));
    eventId = confirmed.data.find((e) => e.data.object.id === order.id)!.id;
    const refused = await platform.api('POST', '/v1/orders', { merchant_id: merchantId, order_no: uniq('BAD-'), chain_id: 84532, token: 'USDC', amount: '-1' });
    expect(refused.status).toBe(422);
    failedRequestId = (refused.body as { error: { request_id: string } }).error.request_id;
    session = await expectStatus<Session>(platform.api('POST', '/v1/checkout/sessions', { merchant_id: merchantId, order_no: uniq('FEE-'), chain_id: 84532, token: 'USDC', amount: '9.99' }), 201);
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** Every route the dashboard router knows, with the ids of the objects made above. */
  const routes = () => [
    '/dashboard',
    '/dashboard/orders',
    `/dashboard/orders/${order.id}`,
    '/dashboard/merchants',
    `/dashboard/merchants/${encodeURIComponent(merchantId)}`,
    '/dashboard/refunds',
    `/dashboard/refunds/${refundId}`,
    '/dashboard/subscriptions',
    `/dashboard/subscriptions/${subscriptionId}`,
    '/dashboard/balances',
    '/dashboard/settlements',
    '/dashboard/webhooks',
    `/dashboard/webhooks/${endpointId}`,
    `/dashboard/webhooks/deliveries/${deliveryId}`,
    '/dashboard/events',
    `/dashboard/events/${eventId}`,
    '/dashboard/developers',
    '/dashboard/developers/logs',
    `/dashboard/developers/logs/${failedRequestId}`,
    '/dashboard/no-such-page',
  ];

  it('lists every route of the dashboard router (a new page must be added here)', () => {
    const source = readFileSync(DASHBOARD_APP, 'utf8');
    const statics = [...source.matchAll(/case '(\/dashboard[^']*)'/g)].map((m) => m[1]!);
    const patterns = [...source.matchAll(/\/\^\\\/dashboard\\\/([a-z-]+)\\\/\(\[\^\/\]\+\)\$\//g)].map((m) => m[1]!);
    expect(statics.length).toBeGreaterThan(5);
    const listed = ['/dashboard', '/dashboard/orders', '/dashboard/merchants', '/dashboard/refunds', '/dashboard/subscriptions', '/dashboard/balances', '/dashboard/settlements', '/dashboard/webhooks', '/dashboard/events', '/dashboard/developers'];
    for (const s of statics) expect(listed, `route ${s} of DashboardApp.tsx is not visited`).toContain(s);
    expect(patterns.sort()).toEqual(['events', 'merchants', 'orders', 'refunds', 'subscriptions', 'webhooks']);
    // The two nested detail routes, visited too: a delivery under webhooks, a request under developers/logs.
    expect(source).toContain('webhooks\\/deliveries\\/');
    expect(source).toContain('developers\\/logs');
  });

  for (const viewport of [{ name: 'desktop', mobile: false, width: 1280, height: 800 }, { name: 'phone', mobile: true, width: 390, height: 844 }]) {
    it(`${viewport.name} ${viewport.width} × ${viewport.height}: no page scrolls sideways, every page shows the devnet badge`, async () => {
      const { context, page } = await newPage(browser, { mobile: viewport.mobile });
      await page.setViewportSize({ width: viewport.width, height: viewport.height });
      await signIn(page, baseUrl, platform.email);
      const failures: string[] = [];
      for (const route of routes()) {
        await page.goto(`${baseUrl}${route}`);
        await settled(page);
        const offenders = await sidewaysOffenders(page);
        if (offenders) failures.push(`${route}: ${offenders}`);
        const badge = page.getByTestId('devnet-badge').filter({ visible: true });
        expect(await badge.count(), `${route} shows no devnet badge`).toBeGreaterThan(0);
        expect(await badge.first().textContent()).toBe('Local devnet (chain 84532)');
      }
      await shot(page, `layout-${viewport.name}-last`);
      expect(failures, `pages that scroll sideways at ${viewport.width} px`).toEqual([]);
      if (viewport.mobile) await expectCollapsedNav(page);
      else await expectSidebarToTheBottom(page, `/dashboard/orders/${order.id}`);
      await context.close();
    });
  }

  it('forms offer only the chains the service runs, by their devnet name', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, baseUrl, platform.email);
    await page.goto(`${baseUrl}/dashboard/orders`);
    await page.getByRole('button', { name: 'New order' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'New order' });
    const options = await dialog.getByLabel('Network').locator('option').allTextContents();
    expect(options).toEqual(['Local devnet (chain 84532)']);
    await context.close();
  });

  it('the fund-refund modal keeps its text inside it', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, baseUrl, platform.email);
    await page.goto(`${baseUrl}/dashboard/refunds`);
    await page.getByRole('button', { name: 'Pay from wallet' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Pay refund from wallet' });
    await dialog.waitFor();
    await settled(page);
    const outside = await dialog.evaluate((modal) => {
      const box = modal.getBoundingClientRect();
      return [...modal.querySelectorAll('*')]
        .filter((el) => el.getBoundingClientRect().right > box.right + 1 || el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX === 'visible')
        .map((el) => `${el.tagName.toLowerCase()}.${el.className}: ${(el.textContent ?? '').slice(0, 60)}`);
    });
    await shot(page, 'layout-fund-refund-modal');
    expect(outside).toEqual([]);
    await context.close();
  });

  it('hosted checkout: devnet badge; itemized by default, the price alone for fee_display "total_only"', async () => {
    const url = `${baseUrl}${new URL(session.url).pathname}`;
    const { context, page } = await newPage(browser);
    await page.goto(url);
    await page.getByTestId('checkout-amount').waitFor();
    expect(await page.getByTestId('devnet-badge').textContent()).toBe('Local devnet (chain 84532)');
    expect(await page.getByRole('table', { name: 'Fee breakdown' }).count()).toBe(1);
    expect(await page.getByTestId('checkout-amount').textContent()).toContain('9.99');
    expect(await page.locator('.summary-note').textContent()).toContain('Local devnet (chain 84532)');
    await context.close();

    // The session as a platform that chose total_only reads it (the field is optional: older services omit it).
    const other = await newPage(browser, { mobile: true });
    await other.page.route(`**/v1/checkout/sessions/${session.session_token}`, async (route) => {
      const res = await route.fetch();
      await route.fulfill({ response: res, json: { ...(await res.json()), fee_display: 'total_only' } });
    });
    await other.page.goto(url);
    await other.page.getByTestId('checkout-amount').waitFor();
    expect(await other.page.getByTestId('checkout-amount').textContent()).toContain('9.99');
    expect(await other.page.getByRole('table', { name: 'Fee breakdown' }).count()).toBe(0);
    const text = (await other.page.locator('body').textContent()) ?? '';
    expect(text).not.toMatch(/Service fee|Platform fee|held in reserve/);
    expect(await other.page.getByTestId('devnet-badge').isVisible()).toBe(true);
    expect(await sidewaysOffenders(other.page)).toBe('');
    await shot(other.page, 'layout-checkout-total-only');
    await other.context.close();
  });
});

/** The page has drawn its data: a heading, no skeleton rows, no "Loading" placeholders. */
async function settled(page: Page) {
  await page.locator('h1').first().waitFor();
  await page.waitForFunction(() => !document.querySelector('.skeleton') && !/Loading…/.test(document.body.innerText), undefined, { timeout: 20_000 });
  await page.evaluate(() => document.fonts.ready);
}

/** '' when the page does not scroll sideways; else the width and the elements that stick out past the viewport. */
function sidewaysOffenders(page: Page): Promise<string> {
  return page.evaluate(() => {
    const root = document.scrollingElement!;
    if (root.scrollWidth <= root.clientWidth) return '';
    const inScroller = (el: Element) => {
      for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
        if (getComputedStyle(p).overflowX !== 'visible') return true;
      }
      return false;
    };
    const name = (el: Element) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${typeof el.className === 'string' && el.className ? `.${el.className.trim().split(/\s+/).join('.')}` : ''}`;
    const out = [...document.body.querySelectorAll('*')]
      .filter((el) => el.getBoundingClientRect().right > root.clientWidth + 1 && (!inScroller(el) || ['absolute', 'fixed'].includes(getComputedStyle(el).position)))
      .slice(-4)
      .map((el) => `${name(el)} (right ${Math.round(el.getBoundingClientRect().right)} px, "${(el.textContent ?? '').trim().slice(0, 40)}")`);
    return `scrollWidth ${root.scrollWidth} > clientWidth ${root.clientWidth}; ${out.join('; ') || 'no element found'}`;
  });
}

/** 1280 px: on a long page scrolled to its end, the sidebar still reaches the bottom of the viewport. */
async function expectSidebarToTheBottom(page: Page, route: string) {
  await page.goto(`${baseUrl}${route}`);
  await settled(page);
  const tall = await page.evaluate(() => document.scrollingElement!.scrollHeight > window.innerHeight);
  expect(tall, `${route} should be longer than the viewport for this check`).toBe(true);
  await page.evaluate(() => window.scrollTo(0, document.scrollingElement!.scrollHeight));
  const box = await page.locator('.sidebar').boundingBox();
  expect(box!.y + box!.height).toBeGreaterThanOrEqual(800 - 1);
  expect(box!.y).toBeLessThanOrEqual(0 + 1);
}

/** 390 px: the sidebar is off-screen behind a menu button that opens it. */
async function expectCollapsedNav(page: Page) {
  const nav = page.getByRole('navigation', { name: 'Dashboard' });
  expect(await nav.getByRole('link', { name: 'Orders' }).isVisible() && (await nav.boundingBox())!.x >= 0).toBe(false);
  await page.getByRole('button', { name: 'Open navigation' }).click();
  await expect.poll(async () => (await nav.boundingBox())!.x).toBeGreaterThanOrEqual(0);
  await nav.getByRole('link', { name: 'Orders' }).click();
  await page.getByRole('heading', { level: 1, name: 'Orders' }).waitFor();
}
