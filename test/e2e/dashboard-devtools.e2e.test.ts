import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createPlatform, expectStatus, randomAddress, uniq, type Platform } from './helpers/api.js';
import { launchBrowser, newPage, shot } from './helpers/browser.js';
import { dashboardChain, signIn, until } from './helpers/dashboard-wallet.js';

const baseUrl = inject('baseUrl');
const devnet = inject('devnet');
const chain = dashboardChain(devnet);
const BUYER = devnet.accounts[8]!;

type Order = { id: string; order_no: string; state: string; payment_method?: string | null; payer?: string | null; pay_to: string; eip712: { message: Record<string, unknown> }; signature: string };
type Settlement = { id: string; state: string; total: string; tx_hash: string | null; orders: { order_id: string; state: string }[] };
type Timeline = { data: { at: string; kind: string; title: string; tx_hash?: string | null }[] };

/**
 * Issue 29's developer tools against the devnet: the test clock releasing a reserve (and the settlement it
 * produces), the order timeline after pay, partial refund and settlement, and the request log.
 */
describe('dashboard developer tools: test clock, order timeline, request log', () => {
  let browser: Browser;
  let platform: Platform;
  let paid: Order;

  beforeAll(async () => {
    browser = await launchBrowser();
    platform = await createPlatform(baseUrl, { name: 'Tidewater Tools', feeBps: 200, reserveBps: 1000 });
    const merchantId = uniq('tide_');
    await expectStatus(platform.api('POST', '/v1/onboarding/merchants', { external_id: merchantId, name: 'Tidewater Kites', merchant_wallet: randomAddress(), chain_id: 84532, reserve_bps: 1000 }), 201);
    const order = await expectStatus<Order>(platform.api('POST', '/v1/orders', { merchant_id: merchantId, order_no: uniq('TW-'), chain_id: 84532, token: 'USDC', amount: '12.00', metadata: { cart: 'kite-42' } }), 201);
    await chain.payOrder(BUYER.private_key, order);
    paid = await until<Order>(platform.api, `/v1/orders/${order.id}`, (o) => o.state === 'confirmed');
    const refund = await expectStatus<{ id: string }>(platform.api('POST', '/v1/refunds', { order_id: paid.id, amount: '1.00' }), 201);
    await until<{ state: string }>(platform.api, `/v1/refunds/${refund.id}`, (r) => r.state === 'completed');
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('test clock: shown on Balances, advancing it past the hold releases the reserve and the settlement appears', async () => {
    const before = await expectStatus<{ chain_time: number | string }>(platform.api('GET', '/v1/test_helpers/clock'), 200);
    const { context, page } = await newPage(browser);
    await signIn(page, baseUrl, platform.email);
    await page.goto(`${baseUrl}/dashboard/balances`);
    const clock = page.getByRole('region', { name: 'Test clock' });
    await clock.getByTestId('chain-time').waitFor();
    await clock.getByRole('button', { name: 'Advance 7 days' }).click();
    await clock.getByRole('status').getByText(/^Moved forward 7 days; the chain's clock advanced 6048\d\d s/).waitFor();
    await clock.getByRole('button', { name: 'Advance 1 day' }).click();
    await clock.getByRole('status').getByText(/^Moved forward 1 day; the chain's clock advanced 864\d\d s/).waitFor();
    const after = await expectStatus<{ chain_time: number | string }>(platform.api('GET', '/v1/test_helpers/clock'), 200);
    const secs = (v: number | string) => (typeof v === 'number' || /^\d+$/.test(v) ? Number(v) : Date.parse(v) / 1000);
    expect(secs(after.chain_time) - secs(before.chain_time)).toBeGreaterThanOrEqual(8 * 86_400);
    await shot(page, 'dashboard-devtools-1-test-clock');

    // The settlement worker releases the held reserve on the advanced chain time; the batch shows up.
    const list = await until<{ data: Settlement[] }>(platform.api, '/v1/settlements', (l) => l.data.some((b) => b.state === 'confirmed'), 110_000);
    const batch = list.data.find((b) => b.state === 'confirmed')!;
    expect(batch.orders).toEqual([expect.objectContaining({ order_id: paid.id, state: 'released' })]);
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Settlements' }).click();
    await page.getByRole('region', { name: 'Test clock' }).waitFor();
    const table = page.getByRole('table', { name: 'Settlements' });
    await table.getByTitle(batch.tx_hash!).waitFor();
    await table.getByRole('button', { name: 'Show orders' }).first().click();
    await page.getByRole('table', { name: `Orders in ${batch.id}` }).getByText(paid.order_no).waitFor();
    await context.close();
  }, 150_000);

  it('order timeline: payment, the partial refund and the settlement, with payment method, payer and metadata', async () => {
    const timeline = await until<Timeline>(platform.api, `/v1/orders/${paid.id}/timeline`, (t) => t.data.some((e) => /settle|release/i.test(e.kind)));
    expect(timeline.data.some((e) => /refund/i.test(e.kind))).toBe(true);
    const order = await expectStatus<Order>(platform.api('GET', `/v1/orders/${paid.id}`), 200);
    expect(order.payment_method).toBeTruthy();
    const { context, page } = await newPage(browser);
    await signIn(page, baseUrl, platform.email);
    await page.goto(`${baseUrl}/dashboard/orders/${paid.id}`);
    const list = page.getByRole('list', { name: 'Timeline' });
    await expect.poll(() => list.getByRole('listitem').count()).toBeGreaterThanOrEqual(timeline.data.length);
    for (const e of timeline.data) await list.getByText(e.title, { exact: true }).first().waitFor();
    const txs = timeline.data.filter((e) => e.tx_hash);
    expect(txs.length).toBeGreaterThanOrEqual(2);
    await list.getByTitle(txs[0]!.tx_hash!).first().waitFor();
    const details = page.getByRole('heading', { name: 'Details' }).locator('xpath=ancestor::section[1]');
    await details.getByText('Payment method').waitFor();
    await details.getByTitle(new RegExp(`^${order.payer ?? BUYER.address}$`, 'i')).first().waitFor();
    await page.getByText('"cart": "kite-42"').waitFor();
    await shot(page, 'dashboard-devtools-2-order-timeline');
    await context.close();
  });

  it('request log: a failed call is found by its request id, with its bodies; an error in the dashboard links there', async () => {
    const res = await fetch(`${baseUrl}/v1/orders`, {
      method: 'POST',
      headers: { authorization: `Bearer ${platform.secretKey}`, 'content-type': 'application/json', 'idempotency-key': uniq('idem-') },
      body: JSON.stringify({ merchant_id: 'no_such_merchant', order_no: 'X-1', chain_id: 84532, token: 'USDC', amount: '-5' }),
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    const requestId = res.headers.get('x-request-id')!;
    expect(requestId).toBeTruthy();
    const { context, page } = await newPage(browser);
    await signIn(page, baseUrl, platform.email);
    await page.goto(`${baseUrl}/dashboard/developers`);
    await page.getByRole('link', { name: 'Logs' }).click();
    await page.getByRole('heading', { level: 1, name: 'Logs' }).waitFor();
    const search = page.getByRole('search', { name: 'Find a request' });
    await search.getByLabel('Request ID').fill(requestId);
    await search.getByRole('button', { name: 'Find' }).click();
    await page.getByRole('heading', { level: 1, name: 'POST /v1/orders' }).waitFor();
    await page.getByText(String(res.status), { exact: true }).first().waitFor();
    await expect.poll(() => page.getByLabel('Request body').textContent()).toContain('no_such_merchant');
    await expect.poll(() => page.getByLabel('Response body').textContent()).toContain(requestId);
    await shot(page, 'dashboard-devtools-3-request-log');

    // An API error the dashboard shows carries its request id, linked to the log entry.
    await page.goto(`${baseUrl}/dashboard/orders/ord_does_not_exist`);
    const alert = page.getByRole('alert');
    const link = alert.getByRole('link');
    await link.waitFor();
    const shown = (await link.textContent())!;
    await link.click();
    await page.getByRole('heading', { level: 1, name: /^GET \/v1\/orders\/ord_does_not_exist/ }).waitFor();
    await page.getByText(shown).first().waitFor();
    await context.close();
  });
});
