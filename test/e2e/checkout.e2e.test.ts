import type { Browser, Page } from 'playwright-core';
import { parseUnits } from 'viem';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createPlatform, expectStatus, randomAddress, uniq, type Platform } from './helpers/api.js';
import { launchBrowser, newPage, shot } from './helpers/browser.js';
import { devnetClients } from './helpers/chain.js';
import { LocalMerchant, verifySignature } from './helpers/receiver.js';
import { TestWallet } from './helpers/wallet.js';

const baseUrl = inject('baseUrl');
const devnet = inject('devnet');
const chain = devnetClients(devnet);

describe('hosted checkout page', () => {
  let browser: Browser;
  let platform: Platform;
  let shop: LocalMerchant;
  let merchantId: string;
  let merchantWallet: `0x${string}`;
  let webhookSecret: string;

  beforeAll(async () => {
    browser = await launchBrowser();
    shop = await new LocalMerchant().start();
    platform = await createPlatform(baseUrl, { name: 'Harbor Market', feeBps: 250, reserveBps: 1000 });
    merchantId = uniq('coffee_');
    merchantWallet = randomAddress();
    await expectStatus(platform.api('POST', '/v1/onboarding/merchants', { external_id: merchantId, name: 'Blue Door Coffee', merchant_wallet: merchantWallet, chain_id: 84532, reserve_bps: 1000 }), 201);
    const endpoint = await expectStatus(platform.api('POST', '/v1/webhooks/endpoints', { url: `${shop.url}/hooks`, subscribed_events: ['order.confirmed', 'checkout.session.completed'] }), 201);
    webhookSecret = endpoint.secret;
  });
  afterAll(async () => {
    await browser?.close();
    await shop?.stop();
  });

  const createSession = (amount: string, extra: Record<string, unknown> = {}) => {
    const orderNo = uniq('A-');
    return expectStatus(
      platform.api('POST', '/v1/checkout/sessions', {
        merchant_id: merchantId,
        order_no: orderNo,
        chain_id: 84532,
        token: 'USDC',
        amount,
        success_url: `${shop.url}/success?order=${orderNo}`,
        cancel_url: `${shop.url}/cancel?order=${orderNo}`,
        metadata: { cart: orderNo },
        ...extra,
      }),
      201,
    );
  };
  const pageUrl = (session: { url: string }) => `${baseUrl}${new URL(session.url).pathname}`;
  /** The page offers the best method first (gasless, batched, permit); the buyer picks "approve, then pay". */
  const chooseMethod = async (page: Page, want: 'approve' | 'permit') => {
    await page.locator('[data-method]').waitFor();
    for (let i = 0; i < 3 && (await page.locator('[data-method]').getAttribute('data-method')) !== want; i++) {
      await page.getByRole('button', { name: /^Or / }).click();
    }
    expect(await page.locator('[data-method]').getAttribute('data-method')).toBe(want);
  };
  let paidOrderId = '';

  it('a buyer switches network, approves and pays; the badge confirms, the shop gets order.confirmed and the split lands on-chain', async () => {
    const session = await createSession('12.34');
    const view = await expectStatus(platform.api('GET', `/v1/checkout/sessions/${session.session_token}`), 200);
    const split = view.order.computed_split;
    const buyer = devnet.accounts[3]!;
    const parties = { treasury: devnet.service_treasury, platform: platform.wallet, merchant: merchantWallet, router: devnet.router, buyer: buyer.address };
    const before = await chain.balances(parties);

    // The wallet starts on Ethereum mainnet and does not know the devnet: the page must add and switch.
    const wallet = new TestWallet({ privateKey: buyer.private_key, rpcUrl: devnet.rpc_url, chainId: devnet.chain_id, startChainId: 1 });
    const { context, page } = await newPage(browser);
    await wallet.install(page);
    await page.goto(pageUrl(session));
    await page.getByText('Blue Door Coffee', { exact: true }).first().waitFor();
    expect(await page.getByTestId('checkout-amount').textContent()).toContain('12.34');
    await page.getByRole('button', { name: /Test Wallet/ }).waitFor();
    await shot(page, 'checkout-1-summary');

    await page.getByRole('button', { name: /Test Wallet/ }).click();
    await page.getByText('Wrong network').waitFor();
    await shot(page, 'checkout-2-wrong-network');
    await page.getByRole('button', { name: /^Switch to / }).click();
    await chooseMethod(page, 'approve');

    const approve = page.getByRole('button', { name: 'Approve 12.34 USDC' });
    await approve.waitFor();
    expect(wallet.chainId).toBe(devnet.chain_id);
    expect(wallet.addedChains[0]?.rpcUrls).toContain(devnet.rpc_url);
    await shot(page, 'checkout-3-approve');

    wallet.rejectNextRequest('eth_sendTransaction');
    await approve.click();
    await page.getByText('You rejected the request in your wallet.').waitFor();
    await shot(page, 'checkout-4-rejected');

    await approve.click();
    const pay = page.getByRole('button', { name: 'Pay 12.34 USDC' });
    await pay.waitFor({ timeout: 30_000 });
    await shot(page, 'checkout-5-pay');
    // Record every state the live badge goes through.
    await page.evaluate(() => {
      const w = window as unknown as { __badge: string[] };
      w.__badge = [];
      const el = document.querySelector('[data-testid="payment-status"]')!;
      const note = () => {
        const s = el.getAttribute('data-state') ?? '';
        if (w.__badge[w.__badge.length - 1] !== s) w.__badge.push(s);
      };
      new MutationObserver(note).observe(el, { attributes: true, attributeFilter: ['data-state'] });
    });
    await pay.click();

    const status = page.getByTestId('payment-status');
    await page.waitForFunction(() => ['submitted', 'confirming', 'confirmed'].includes(document.querySelector('[data-testid="payment-status"]')?.getAttribute('data-state') ?? ''));
    await shot(page, 'checkout-6-in-flight');
    const confirming = await page
      .waitForFunction(() => document.querySelector('[data-testid="payment-status"]')?.getAttribute('data-state') === 'confirming', undefined, { timeout: 10_000 })
      .then(() => true, () => false);
    if (confirming) await shot(page, 'checkout-6b-confirming');
    await page.waitForFunction(() => document.querySelector('[data-testid="payment-status"]')?.getAttribute('data-state') === 'confirmed', undefined, { timeout: 60_000 });
    expect(await status.textContent()).toContain('Confirmed');
    const badge = await page.evaluate(() => (window as unknown as { __badge: string[] }).__badge);
    expect(badge[0]).toBe('submitted');
    expect(badge[badge.length - 1]).toBe('confirmed');
    expect(badge.filter((s) => !['submitted', 'confirming', 'confirmed'].includes(s))).toEqual([]);
    await shot(page, 'checkout-7-confirmed');

    await page.waitForURL(`${shop.url}/success**`, { timeout: 30_000 });
    await page.getByRole('heading', { name: 'Thank you for your order' }).waitFor();
    await shot(page, 'checkout-8-success-page');

    paidOrderId = session.order_id;
    const hook = await shop.waitFor((r) => r.body.type === 'order.confirmed' && r.body.data.object.id === session.order_id, 60_000);
    expect(verifySignature(hook, webhookSecret)).toBe(true);
    expect(hook.body.data.object.metadata).toMatchObject({ cart: view.order.order_no });

    const after = await chain.balances(parties);
    const delta = (k: keyof typeof parties) => after[k]! - before[k]!;
    expect(delta('treasury')).toBe(BigInt(split.service_fee));
    expect(delta('platform')).toBe(BigInt(split.platform_fee));
    expect(delta('merchant')).toBe(BigInt(split.merchant_available));
    expect(delta('router')).toBe(BigInt(split.reserve_hold));
    expect(delta('buyer')).toBe(-parseUnits('12.34', 6));
    expect(BigInt(split.service_fee) + BigInt(split.platform_fee) + BigInt(split.merchant_available) + BigInt(split.reserve_hold)).toBe(parseUnits('12.34', 6));
    // One rejected approve, the approve, the payment.
    expect(wallet.count('eth_sendTransaction')).toBe(3);

    // Opening the link again shows that the order is paid.
    await page.goto(pageUrl(session));
    await page.getByRole('heading', { name: 'This order is paid' }).waitFor();
    await shot(page, 'checkout-9-already-paid');
    await context.close();
  });

  it('the platform sees the paid order in its dashboard and refunds part of it from the reserve', async () => {
    expect(paidOrderId).toMatch(/^ord_/);
    const { context, page } = await newPage(browser);
    await context.addCookies(
      platform.cookie.split('; ').map((pair) => {
        const i = pair.indexOf('=');
        return { name: pair.slice(0, i), value: pair.slice(i + 1), url: baseUrl };
      }),
    );
    await page.goto(`${baseUrl}/dashboard`);
    await page.getByRole('heading', { level: 1, name: 'Home' }).waitFor();
    await page.getByTestId('stat-Confirmed orders').filter({ hasText: /[1-9]/ }).waitFor();
    await page.getByRole('table', { name: 'Recent orders' }).getByText('12.34').waitFor();
    await shot(page, 'dashboard-20-home-with-volume');

    await page.goto(`${baseUrl}/dashboard/orders/${paidOrderId}`);
    await page.getByText('Confirmed', { exact: true }).first().waitFor();
    await page.getByRole('button', { name: 'Refund' }).click();
    const dialog = page.getByRole('dialog', { name: 'Refund an order' });
    await dialog.getByLabel('Amount (optional)').fill('1.00');
    await dialog.getByLabel('Reason (optional)').fill('Damaged cup');
    await dialog.getByRole('button', { name: 'Refund' }).click();
    await page.getByRole('dialog', { name: 'Refund created' }).waitFor();
    await shot(page, 'dashboard-21-refund-created', { fullPage: false });
    await page.getByRole('dialog', { name: 'Refund created' }).getByRole('button', { name: 'Done' }).click();
    await page.getByRole('table').getByText('Damaged cup').waitFor();

    const refunds = await expectStatus(platform.api('GET', `/v1/refunds?order_id=${paidOrderId}`), 200);
    expect(refunds.data).toHaveLength(1);
    expect(refunds.data[0]).toMatchObject({ order_id: paidOrderId, reason: 'Damaged cup' });
    expect(['pending', 'completed']).toContain(refunds.data[0].state);
    await page.goto(`${baseUrl}/dashboard/refunds`);
    await page.getByRole('table', { name: 'Refunds' }).getByText('Damaged cup').waitFor();
    await shot(page, 'dashboard-22-refunds');

    // Webhook deliveries: the order.confirmed sent to the shop, and a redelivery from the dashboard.
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('table', { name: 'Webhook endpoints' }).getByText(`${shop.url}/hooks`).click();
    const deliveries = page.getByRole('table', { name: 'Deliveries' });
    const confirmedRow = deliveries.locator('tbody tr', { hasText: 'order.confirmed' }).first();
    await confirmedRow.getByText('Succeeded').waitFor();
    await shot(page, 'dashboard-23-deliveries');
    const eventId = (await shop.waitFor((r) => r.body.type === 'order.confirmed' && r.body.data.object.id === paidOrderId)).body.id;
    const sentBefore = shop.received.filter((r) => r.body.id === eventId).length;
    await confirmedRow.getByRole('button', { name: 'Redeliver' }).click();
    await expect.poll(() => shop.received.filter((r) => r.body.id === eventId).length, { timeout: 20_000 }).toBeGreaterThan(sentBefore);
    await context.close();
  });

  it('skips the approval when the allowance already covers the amount', async () => {
    const buyer = devnet.accounts[4]!;
    await chain.approveRouter(buyer.private_key, parseUnits('1000', 6));
    const session = await createSession('3.00');
    const wallet = new TestWallet({ privateKey: buyer.private_key, rpcUrl: devnet.rpc_url, chainId: devnet.chain_id });
    const { context, page } = await newPage(browser);
    await wallet.install(page);
    await page.goto(pageUrl(session));
    await page.getByRole('button', { name: /Test Wallet/ }).click();
    await chooseMethod(page, 'approve');
    await page.getByRole('button', { name: 'Pay 3.00 USDC' }).click();
    await page.waitForURL(`${shop.url}/success**`, { timeout: 60_000 });
    expect(wallet.count('eth_sendTransaction')).toBe(1);
    const order = await expectStatus(platform.api('GET', `/v1/orders/${session.order_id}`), 200);
    expect(order.state).toBe('confirmed');
    expect(order.paid_by?.toLowerCase()).toBe(buyer.address.toLowerCase());
    await context.close();
  });

  it('pays in one transaction with an EIP-2612 permit', async () => {
    const buyer = devnet.accounts[5]!;
    const session = await createSession('7.50');
    const wallet = new TestWallet({ privateKey: buyer.private_key, rpcUrl: devnet.rpc_url, chainId: devnet.chain_id });
    const { context, page } = await newPage(browser);
    await wallet.install(page);
    await page.goto(pageUrl(session));
    await page.getByRole('button', { name: /Test Wallet/ }).click();
    await chooseMethod(page, 'permit');
    await page.getByRole('button', { name: 'Pay 7.50 USDC' }).click();
    await page.waitForURL(`${shop.url}/success**`, { timeout: 60_000 });
    expect(wallet.count('eth_signTypedData_v4')).toBe(1);
    expect(wallet.count('eth_sendTransaction')).toBe(1);
    const order = await expectStatus(platform.api('GET', `/v1/orders/${session.order_id}`), 200);
    expect(order.state).toBe('confirmed');
    await context.close();
  });

  it('a session reserved for one wallet refuses the others; expired and unknown sessions have their own pages', async () => {
    const reserved = devnet.accounts[6]!;
    const other = devnet.accounts[7]!;
    const session = await createSession('5.00', { payer_address: reserved.address });
    const wallet = new TestWallet({ privateKey: other.private_key, rpcUrl: devnet.rpc_url, chainId: devnet.chain_id });
    const { context, page } = await newPage(browser);
    await wallet.install(page);
    await page.goto(pageUrl(session));
    await page.getByText('Reserved for one wallet').waitFor();
    await page.getByRole('button', { name: /Test Wallet/ }).click();
    await page.getByText('Wrong wallet').waitFor();
    expect(await page.getByRole('button', { name: /^Pay / }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Approve / }).count()).toBe(0);
    await shot(page, 'checkout-10-reserved');
    await context.close();

    // Expiry is at least a minute away on the server: the page's rendering of an expired session is checked.
    const expired = await createSession('9.99');
    const { context: c2, page: p2 } = await newPage(browser);
    await p2.route(`**/v1/checkout/sessions/${expired.session_token}`, async (route) => {
      const res = await route.fetch();
      const body = await res.json();
      await route.fulfill({ response: res, json: { ...body, state: 'expired', order: { ...body.order, state: 'expired' } } });
    });
    await p2.goto(pageUrl(expired));
    await p2.getByRole('heading', { name: 'This checkout has expired' }).waitFor();
    await shot(p2, 'checkout-11-expired');

    await p2.goto(`${baseUrl}/checkout/cs_live_unknown000000000000000000`);
    await p2.getByRole('heading', { name: 'Checkout not found' }).waitFor();
    await shot(p2, 'checkout-12-not-found');
    await c2.close();

    // The buyer page on a phone.
    const open = await createSession('18.00');
    const { context: c3, page: p3 } = await newPage(browser, { mobile: true });
    await p3.goto(pageUrl(open));
    await p3.getByTestId('checkout-amount').waitFor();
    await p3.getByText('No wallet found in this browser').waitFor();
    await shot(p3, 'checkout-13-mobile');
    await c3.close();
  });
});
