import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createPlatform, expectStatus, randomAddress, uniq, type Platform } from './helpers/api.js';
import { launchBrowser, newPage, shot } from './helpers/browser.js';
import { dashboardChain, signIn, until } from './helpers/dashboard-wallet.js';

const baseUrl = inject('baseUrl');
const devnet = inject('devnet');
const chain = dashboardChain(devnet);
const BUYER = devnet.accounts[8]!;

type Order = { id: string; order_no: string; state: string; tx_hash: string | null; paid_by: string | null; pay_to: string; eip712: { message: Record<string, unknown> }; signature: string };

describe('dashboard pages: orders search, invitations, merchant detail, balances, settlements', () => {
  let browser: Browser;
  let platform: Platform;
  let merchantId: string;
  let merchantWallet: string;
  let paid: Order;
  let unpaid: Order;

  beforeAll(async () => {
    browser = await launchBrowser();
    platform = await createPlatform(baseUrl, { name: 'Lagoon Supply', feeBps: 300, reserveBps: 1000 });
    merchantId = uniq('lagoon_');
    merchantWallet = randomAddress();
    await expectStatus(platform.api('POST', '/v1/onboarding/merchants', { external_id: merchantId, name: 'Lagoon Kayaks', merchant_wallet: merchantWallet, chain_id: 84532, reserve_bps: 1000 }), 201);
    const create = (amount: string) => expectStatus<Order>(platform.api('POST', '/v1/orders', { merchant_id: merchantId, order_no: uniq('LG-'), chain_id: 84532, token: 'USDC', amount }), 201);
    const order = await create('20.00');
    unpaid = await create('3.00');
    await chain.payOrder(BUYER.private_key, order);
    paid = await until<Order>(platform.api, `/v1/orders/${order.id}`, (o) => o.state === 'confirmed');
    // A partial refund from the reserve (the service submits it): the net volume is gross minus it.
    const refund = await expectStatus<{ id: string }>(platform.api('POST', '/v1/refunds', { order_id: paid.id, amount: '1.00' }), 201);
    await until<{ state: string }>(platform.api, `/v1/refunds/${refund.id}`, (r) => r.state === 'completed');
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('orders: search by payer, tx hash, order_no and id; date range; a server refusal is shown', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, baseUrl, platform.email);
    await page.goto(`${baseUrl}/dashboard/orders`);
    const table = page.getByRole('table', { name: 'Orders' });
    await table.getByText(unpaid.order_no).waitFor();
    const search = page.getByRole('search', { name: 'Search orders' });
    for (const q of [paid.paid_by!, paid.tx_hash!, paid.order_no, paid.id]) {
      await search.getByLabel('Search').fill(q);
      await search.getByRole('button', { name: 'Search' }).click();
      await table.getByText(paid.order_no).waitFor();
      await expect.poll(() => table.getByText(unpaid.order_no).count()).toBe(0);
    }
    await shot(page, 'dashboard-pages-1-search');
    await search.getByLabel('Search').fill('no-such-order');
    await search.getByRole('button', { name: 'Search' }).click();
    await page.getByText('No orders match').waitFor();
    await search.getByRole('button', { name: 'Clear' }).click();
    await table.getByText(unpaid.order_no).waitFor();

    const today = new Date().toISOString().slice(0, 10);
    await search.getByLabel('From').fill(today);
    await search.getByLabel('To').fill(today);
    await search.getByRole('button', { name: 'Search' }).click();
    await table.getByText(paid.order_no).waitFor();
    await search.getByLabel('From').fill('2030-01-02');
    await search.getByLabel('To').fill('2030-01-01');
    await search.getByRole('button', { name: 'Search' }).click();
    await page.getByText('to must be after from').waitFor(); // the API's wording: the field, then the schema's own message
    await context.close();
  });

  it('invitations: revoke (the link stops working) and re-issue (a fresh link that works)', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, baseUrl, platform.email);
    await page.goto(`${baseUrl}/dashboard/merchants`);
    await page.getByRole('button', { name: 'Invite merchant' }).first().click();
    const invite = page.getByRole('dialog', { name: 'Invite a merchant' });
    const ext = uniq('inv_');
    await invite.getByLabel('Merchant ID').fill(ext);
    await invite.getByLabel('Suggested name').fill('Harbour Sails');
    await invite.getByRole('button', { name: 'Create invitation' }).click();
    const link = await page.getByRole('dialog', { name: 'Invitation created' }).getByLabel('Onboarding link').inputValue();
    const token = link.split('/onboard/')[1]!;
    await page.getByRole('dialog', { name: 'Invitation created' }).getByRole('button', { name: 'Done' }).click();
    const row = page.getByRole('table', { name: 'Invitations' }).getByRole('row').filter({ hasText: ext });
    await row.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('dialog', { name: 'Revoke this invitation?' }).getByRole('button', { name: 'Revoke invitation' }).click();
    await row.getByText('Revoked').waitFor();
    expect((await platform.api('GET', `/v1/merchants/invitations/${token}`)).status).toBe(410);
    await shot(page, 'dashboard-pages-2-revoked');

    await row.getByRole('button', { name: 'Re-issue' }).click();
    const reissue = page.getByRole('dialog', { name: 'Re-issue the invitation' });
    expect(await reissue.getByLabel('Merchant ID').inputValue()).toBe(ext);
    await reissue.getByRole('button', { name: 'Create new link' }).click();
    const fresh = await page.getByRole('dialog', { name: 'Invitation created' }).getByLabel('Onboarding link').inputValue();
    expect(fresh).not.toBe(link);
    const read = await platform.api('GET', `/v1/merchants/invitations/${fresh.split('/onboard/')[1]}`);
    expect(read).toMatchObject({ status: 200, body: { state: 'pending', external_id: ext } });
    expect((await platform.api('GET', `/v1/merchants/invitations/${token}`)).status).toBe(410);
    await context.close();
  });

  it('merchant detail is read-only and shows its wallet, balance and orders', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, baseUrl, platform.email);
    await page.goto(`${baseUrl}/dashboard/merchants`);
    await page.getByRole('table', { name: 'Merchants' }).getByRole('link', { name: 'Lagoon Kayaks' }).click();
    await page.getByRole('heading', { level: 1, name: /Lagoon Kayaks/ }).waitFor();
    await page.getByTitle(merchantWallet).waitFor();
    await page.getByRole('table', { name: 'Merchant orders' }).getByText(paid.order_no).waitFor();
    await page.getByText('contact Trisettle support').waitFor();
    expect(await page.getByRole('button', { name: /edit|change|save/i }).count()).toBe(0);
    const balance = await expectStatus<{ reserve_held: string }>(platform.api('GET', `/v1/balance?merchant_id=${merchantId}`), 200);
    await page.getByRole('definition').filter({ hasText: `${balance.reserve_held.replace(/0+$/, '').replace(/\.$/, '.00')} USDC` }).first().waitFor();
    await shot(page, 'dashboard-pages-3-merchant');
    await context.close();
  });

  it('balances: figures and net volume equal the API, 7/30/90 days, ledger rows, CSV export', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, baseUrl, platform.email);
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Balances' }).click();
    await page.getByRole('heading', { level: 1, name: 'Balances' }).waitFor();
    const volume = await expectStatus<{ net: string; gross: string; refunded: string }>(platform.api('GET', '/v1/balance/net_volume?days=30'), 200);
    expect(volume).toMatchObject({ gross: '20.00', refunded: '1.00', net: '19.00' });
    await expect.poll(() => page.getByTestId('net-volume-total').textContent()).toBe('19.00 USDC');
    await page.getByRole('button', { name: '7 days', exact: true }).click();
    await page.getByText('Net over 7 days').waitFor();
    await page.getByRole('button', { name: '90 days', exact: true }).click();
    await page.getByText('Net over 90 days').waitFor();
    const ledger = page.getByRole('table', { name: 'Balance transactions' });
    await ledger.getByText('Payment reserve hold').first().waitFor();
    await ledger.getByText('Refund from reserve').first().waitFor();
    await page.getByRole('table', { name: 'Balance by merchant' }).getByText(merchantId).waitFor();
    await shot(page, 'dashboard-pages-4-balances');
    const href = await page.getByRole('link', { name: 'Export ledger' }).getAttribute('href');
    const csv = await fetch(`${baseUrl}${href}`, { headers: { cookie: platform.cookie } });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/text\/csv/);
    expect(await csv.text()).toContain(paid.id);

    await context.close();
  });

  // Last: it moves the shared devnet's clock past the reserve hold (RESERVE_HOLD_DAYS, 7 by default).
  it('settlements: once the hold ends on chain time, the batch shows with its order, amount and tx', async () => {
    const rpc = (method: string, params: unknown[]) => fetch(devnet.rpc_url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
    await rpc('evm_increaseTime', [8 * 86_400]);
    // The settlement worker passes every 60 s; the batch is then mined and indexed.
    type Settlement = { id: string; state: string; total: string; tx_hash: string | null; orders: { order_id: string; state: string }[] };
    const list = await until<{ data: Settlement[] }>(platform.api, '/v1/settlements', (l) => l.data.some((b) => b.state === 'confirmed'), 110_000);
    const batch = list.data.find((b) => b.state === 'confirmed')!;
    expect(batch.orders).toEqual([expect.objectContaining({ order_id: paid.id, state: 'released' })]);
    const reserve = await chain.usdcBalance(merchantWallet as `0x${string}`);
    expect(reserve).toBeGreaterThan(0n);

    const { context, page } = await newPage(browser);
    await signIn(page, baseUrl, platform.email);
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Settlements' }).click();
    await page.getByRole('heading', { level: 1, name: 'Settlements' }).waitFor();
    const table = page.getByRole('table', { name: 'Settlements' });
    await table.getByTitle(batch.tx_hash!).waitFor();
    await table.getByText(`${batch.total} USDC`).waitFor();
    await table.getByRole('button', { name: 'Show orders' }).first().click();
    await page.getByRole('table', { name: `Orders in ${batch.id}` }).getByText(paid.order_no).waitFor();
    await shot(page, 'dashboard-pages-5-settlements');
    await context.close();
  }, 150_000);
});
