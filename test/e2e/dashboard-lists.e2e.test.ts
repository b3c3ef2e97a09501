import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createPlatform, expectStatus, randomAddress, uniq, type Platform } from './helpers/api.js';
import { launchBrowser, newPage, shot } from './helpers/browser.js';
import { dashboardChain, signIn, until } from './helpers/dashboard-wallet.js';

const baseUrl = inject('baseUrl');
const devnet = inject('devnet');
const chain = dashboardChain(devnet);
const BUYER = devnet.accounts[5]!;

type Order = { id: string; order_no: string; state: string; pay_to: string; eip712: { message: Record<string, unknown> }; signature: string };

/** What one list table looks like to a reader: its rows, their actions and cells, and where each box lies. */
type TableReport = { label: string; rows: number; problems: string[] };

/**
 * Every list page of the dashboard at a laptop width and a phone width, with the rows a working platform has (a paid
 * and an unpaid order, a refund that needs funding, a pending invitation, a subscription, a webhook endpoint with a
 * delivery, keys, a refused request): every row action lies inside the viewport and its card; at 1280 px no table
 * hides a column past the card's edge; at 390 px each row is a card that shows every field with its label.
 */
describe('dashboard lists: every action visible at 1280 px, every row readable at 390 px', () => {
  let browser: Browser;
  let platform: Platform;
  let merchantId: string;
  let paid: Order;
  let endpointId: string;

  beforeAll(async () => {
    browser = await launchBrowser();
    platform = await createPlatform(baseUrl, { name: 'Northwind Outdoor Marketplace', feeBps: 250, reserveBps: 1000 });
    merchantId = uniq('northwind_kayaks_');
    await expectStatus(platform.api('POST', '/v1/onboarding/merchants', { external_id: merchantId, name: 'Northwind Kayaks & Paddles', merchant_wallet: randomAddress(), chain_id: 84532, reserve_bps: 1000 }), 201);
    await expectStatus(platform.api('POST', '/v1/merchants/invitations', { external_id: uniq('harbour_sails_'), suggested_name: 'Harbour Sails and Rigging', chain_id: 84532, reserve_bps: 500 }), 201);
    const create = (amount: string) => expectStatus<Order>(platform.api('POST', '/v1/orders', { merchant_id: merchantId, order_no: uniq('NW-2026-'), chain_id: 84532, token: 'USDC', amount }), 201);
    const order = await create('1234.56');
    await create('19.99');
    await chain.payOrder(BUYER.private_key, order);
    paid = await until<Order>(platform.api, `/v1/orders/${order.id}`, (o) => o.state === 'confirmed');
    // More than the reserve holds: a refund that needs funding, the row with the most actions.
    await expectStatus(platform.api('POST', '/v1/refunds', { order_id: paid.id, amount: '600.00', reason: 'Damaged in transit, customer returned it' }), 201);
    await expectStatus(platform.api('POST', '/v1/subscriptions', { merchant_id: merchantId, chain_id: 84532, token: 'USDC', amount: '19.99', interval: 'month' }), 201);
    endpointId = (await expectStatus<{ id: string }>(platform.api('POST', '/v1/webhooks/endpoints', { url: 'http://127.0.0.1:9/trisettle/webhooks', subscribed_events: ['*'], description: 'Production order sync' }), 201)).id;
    await expectStatus(platform.api('POST', `/v1/webhooks/endpoints/${endpointId}/test`, {}), 201);
    expect((await platform.api('POST', '/v1/orders', { merchant_id: merchantId, order_no: uniq('BAD-'), chain_id: 84532, token: 'USDC', amount: '-1' })).status).toBe(422);
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** Each list page and the tables it must show with at least one row. */
  const pages = () => [
    { route: '/dashboard', tables: ['Recent orders'] },
    { route: '/dashboard/orders', tables: ['Orders'] },
    { route: `/dashboard/orders/${paid.id}`, tables: ['Refunds of this order'] },
    { route: '/dashboard/merchants', tables: ['Merchants', 'Invitations'] },
    { route: `/dashboard/merchants/${encodeURIComponent(merchantId)}`, tables: ['Merchant orders'] },
    { route: '/dashboard/refunds', tables: ['Refunds'] },
    { route: '/dashboard/subscriptions', tables: ['Subscriptions'] },
    { route: '/dashboard/balances', tables: ['Balance by merchant', 'Balance transactions'] },
    { route: '/dashboard/settlements', tables: [] },
    { route: '/dashboard/webhooks', tables: ['Webhook endpoints'] },
    { route: `/dashboard/webhooks/${endpointId}`, tables: ['Deliveries'] },
    { route: '/dashboard/events', tables: ['Events'] },
    { route: '/dashboard/developers', tables: ['API keys', 'Key audit log'] },
    { route: '/dashboard/developers/logs', tables: ['Requests'] },
  ];

  for (const viewport of [{ name: 'desktop', mobile: false, width: 1280, height: 800 }, { name: 'phone', mobile: true, width: 390, height: 844 }]) {
    it(`${viewport.width} px: row actions inside the viewport and the card; ${viewport.mobile ? 'rows are labelled cards' : 'no column past the card'}`, async () => {
      const { context, page } = await newPage(browser, { mobile: viewport.mobile });
      await page.setViewportSize({ width: viewport.width, height: viewport.height });
      await signIn(page, baseUrl, platform.email);
      const problems: string[] = [];
      let actions = 0;
      for (const { route, tables } of pages()) {
        await page.goto(`${baseUrl}${route}`);
        for (const label of tables) await page.getByRole('table', { name: label, exact: true }).locator('tbody tr:not(.skeleton-row)').first().waitFor();
        await settled(page);
        const reports = await inspectTables(page, viewport.mobile);
        for (const label of tables) expect(reports.map((r) => r.label), `${route} shows table ${label}`).toContain(label);
        for (const r of reports) {
          if (tables.includes(r.label)) expect(r.rows, `${route} ${r.label} has rows`).toBeGreaterThan(0);
          problems.push(...r.problems.map((p) => `${route} [${r.label}] ${p}`));
        }
        actions += await page.locator('main table tbody button, main table tbody a').count();
        await shot(page, `lists-${viewport.name}-${route.split('/').slice(2).join('-').slice(0, 40) || 'home'}`);
      }
      expect(problems).toEqual([]);
      // The refund that needs funding (Pay from wallet, Cancel), the invitation (Revoke, Re-issue), keys (Revoke)…
      expect(actions).toBeGreaterThan(20);
      await context.close();
    });
  }

  it('the refund row keeps both of its actions clickable at 1280 px (the actions column stays in view)', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, baseUrl, platform.email);
    await page.goto(`${baseUrl}/dashboard/refunds`);
    const row = page.getByRole('table', { name: 'Refunds' }).getByRole('row').filter({ hasText: '600.00' });
    await row.getByRole('button', { name: 'Pay from wallet' }).click({ trial: true });
    await row.getByRole('button', { name: /^Cancel/ }).click({ trial: true });
    await context.close();
  });
});

/** The page drew its data: a heading, no skeletons, no "Loading…". */
async function settled(page: Page) {
  await page.locator('h1').first().waitFor();
  await page.waitForFunction(() => !document.querySelector('.skeleton') && !/Loading…/.test(document.body.innerText), undefined, { timeout: 20_000 });
  await page.evaluate(() => document.fonts.ready);
}

/**
 * For every table in the page's main area: each row action's box inside the viewport and its card; at a laptop width
 * the table fits its card (nothing scrolled out of sight); at a phone width each cell with content shows its label.
 */
function inspectTables(page: Page, phone: boolean): Promise<TableReport[]> {
  return page.evaluate((phone) => {
    const vw = document.documentElement.clientWidth;
    const inside = (b: DOMRect, o: { left: number; right: number }) => b.left >= o.left - 1 && b.right <= o.right + 1;
    return [...document.querySelectorAll<HTMLTableElement>('main table.table')].map((table) => {
      const label = table.getAttribute('aria-label') ?? '(no label)';
      const card = table.closest('.card')!.getBoundingClientRect();
      const problems: string[] = [];
      const rows = [...table.tBodies[0]?.rows ?? []].filter((r) => !r.classList.contains('skeleton-row') && !r.classList.contains('subrow') && !r.classList.contains('row-detail'));
      for (const action of table.querySelectorAll<HTMLElement>(':scope > tbody > tr > td button, :scope > tbody > tr > td a')) {
        const b = action.getBoundingClientRect();
        const name = `"${(action.textContent ?? '').trim().slice(0, 30)}"`;
        if (!inside(b, { left: 0, right: vw })) problems.push(`${name} outside the viewport (${Math.round(b.left)}–${Math.round(b.right)} of ${vw})`);
        if (!inside(b, card)) problems.push(`${name} outside its card (${Math.round(b.left)}–${Math.round(b.right)}, card ${Math.round(card.left)}–${Math.round(card.right)})`);
      }
      const scroller = table.parentElement!;
      if (!phone && scroller.scrollWidth > scroller.clientWidth + 1) problems.push(`columns past the card's edge (${scroller.scrollWidth} > ${scroller.clientWidth} px)`);
      if (phone) {
        for (const row of rows) {
          for (const cell of [...row.cells]) {
            if (cell.colSpan > 1 || cell.hasAttribute('data-actions') || !(cell.textContent ?? '').trim()) continue;
            const text = cell.dataset.label ?? '';
            const shown = getComputedStyle(cell, '::before').content;
            if (!text || shown !== JSON.stringify(text)) problems.push(`cell "${(cell.textContent ?? '').trim().slice(0, 20)}" without its label (${shown})`);
            if (!inside(cell.getBoundingClientRect(), card)) problems.push(`cell "${(cell.textContent ?? '').trim().slice(0, 20)}" outside its card`);
          }
        }
      }
      return { label, rows: rows.length, problems };
    });
  }, phone);
}
