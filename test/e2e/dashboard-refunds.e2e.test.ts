import type { Browser } from 'playwright-core';
import { parseUnits } from 'viem';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createPlatform, expectStatus, randomAddress, uniq, type Platform } from './helpers/api.js';
import { launchBrowser, newPage, shot } from './helpers/browser.js';
import { dashboardChain, fundingWallet, signIn, until } from './helpers/dashboard-wallet.js';

const baseUrl = inject('baseUrl');
const devnet = inject('devnet');
const chain = dashboardChain(devnet);
const BUYER = devnet.accounts[8]!;
const FUNDER = 9;

type Order = { id: string; state: string; amount: string; reserve_remaining: string; pay_to: string; eip712: { message: Record<string, unknown> }; signature: string };
type Refund = { id: string; state: string; amount: string; reserve_portion: string; funding_required: string; cancellation: string | null; tx_hash: string | null };

describe('dashboard refunds that need funding', () => {
  let browser: Browser;
  let platform: Platform;
  let merchantId: string;

  beforeAll(async () => {
    browser = await launchBrowser();
    platform = await createPlatform(baseUrl, { name: 'Fjord Outfitters', feeBps: 250, reserveBps: 1000 });
    merchantId = uniq('fjord_');
    await expectStatus(platform.api('POST', '/v1/onboarding/merchants', { external_id: merchantId, name: 'Fjord Tents', merchant_wallet: randomAddress(), chain_id: 84532, reserve_bps: 1000 }), 201);
  });
  afterAll(async () => {
    await browser?.close();
  });

  async function paidOrder(amount: string): Promise<Order> {
    const order = await expectStatus<Order>(platform.api('POST', '/v1/orders', { merchant_id: merchantId, order_no: uniq('FJ-'), chain_id: 84532, token: 'USDC', amount }), 201);
    await chain.payOrder(BUYER.private_key, order);
    return until<Order>(platform.api, `/v1/orders/${order.id}`, (o) => o.state === 'confirmed');
  }

  it('previews reserve vs wallet, then pays a requires_funding refund from the connected wallet; the buyer gets it on chain', async () => {
    const order = await paidOrder('10.00');
    const reserve = BigInt(order.reserve_remaining);
    expect(reserve).toBeGreaterThan(0n);
    const funder = fundingWallet(devnet, FUNDER);
    const { context, page } = await newPage(browser);
    await funder.install(page);
    await signIn(page, baseUrl, platform.email);
    await page.goto(`${baseUrl}/dashboard/orders/${order.id}`);
    await page.getByRole('button', { name: 'Refund', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Refund an order' });
    // Before submitting: the reserve covers what it holds, the wallet the rest (10.00 − reserve).
    const preview = dialog.getByTestId('refund-preview');
    await preview.getByText("From the order's reserve").waitFor();
    const text = await preview.textContent();
    const fmt = (base: bigint) => `${base / 1_000_000n}.${(base % 1_000_000n).toString().padStart(6, '0').replace(/0{1,4}$/, '')}`;
    expect(text).toContain(`${fmt(reserve)} USDC`);
    expect(text).toContain(`${fmt(10_000_000n - reserve)} USDC`);
    await shot(page, 'dashboard-refund-1-preview', { fullPage: false });
    await dialog.getByRole('button', { name: 'Refund', exact: true }).click();
    const created = page.getByRole('dialog', { name: 'Refund created' });
    await created.getByText('Funding needed').waitFor();
    const refunds = await expectStatus<{ data: Refund[] }>(platform.api('GET', `/v1/refunds?order_id=${order.id}`), 200);
    const refund = refunds.data[0]!;
    expect(refund).toMatchObject({ state: 'requires_funding', reserve_portion: reserve.toString(), funding_required: (10_000_000n - reserve).toString() });

    const before = await chain.balances({ buyer: BUYER.address, funder: funder.address });
    await created.getByRole('button', { name: 'Pay from wallet' }).click();
    const pay = page.getByRole('dialog', { name: 'Pay refund from wallet' });
    await pay.getByRole('button', { name: /Test Wallet/ }).click();
    await pay.getByRole('button', { name: /^Pay .* USDC$/ }).click();
    await pay.getByText('Refund completed').waitFor({ timeout: 60_000 });
    await shot(page, 'dashboard-refund-2-paid', { fullPage: false });
    expect(funder.count('eth_sendTransaction')).toBe(2); // approve, refund

    // On chain: the buyer got the whole refund, the funding wallet paid exactly the part the reserve did not.
    const after = await chain.balances({ buyer: BUYER.address, funder: funder.address });
    expect(after.buyer! - before.buyer!).toBe(parseUnits('10', 6));
    expect(before.funder! - after.funder!).toBe(10_000_000n - reserve);
    expect(await chain.refundOnChain(refund.id)).toEqual({ used: true, cancelled: false });
    const done = await until<Refund>(platform.api, `/v1/refunds/${refund.id}`, (r) => r.state === 'completed');
    expect(done.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    await pay.getByRole('button', { name: 'Close' }).click().catch(() => undefined);
    await context.close();
  });

  it('cancels a requires_funding refund: cancellation shows until it is failed, and the router refuses the signature', async () => {
    const order = await paidOrder('6.00');
    const refund = await expectStatus<Refund>(platform.api('POST', '/v1/refunds', { order_id: order.id }), 201);
    expect(refund.state).toBe('requires_funding');
    const { context, page } = await newPage(browser);
    await signIn(page, baseUrl, platform.email);
    await page.goto(`${baseUrl}/dashboard/orders/${order.id}`);
    const row = page.locator(`tr[data-refund-id="${refund.id}"]`);
    await row.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('dialog', { name: 'Cancel this refund?' }).getByRole('button', { name: 'Cancel refund' }).click();
    // The cancellation shows while the router has not confirmed it (it may already be confirmed on a fast devnet).
    await row.getByText('Cancelling on chain…').or(row.getByText('Cancelled', { exact: true })).first().waitFor();
    await shot(page, 'dashboard-refund-3-cancelling', { fullPage: false });
    await row.getByText('Cancelled', { exact: true }).waitFor({ timeout: 60_000 });
    await row.getByText('Failed').waitFor();
    await shot(page, 'dashboard-refund-4-cancelled', { fullPage: false });

    // On chain: the router marked it cancelled, and submitting the signed refund now reverts.
    expect(await chain.refundOnChain(refund.id)).toEqual({ used: true, cancelled: true });
    const full = await expectStatus<Refund & { eip712: { message: Record<string, string> }; signature: `0x${string}`; pay_to: `0x${string}` }>(platform.api('GET', `/v1/refunds/${refund.id}`), 200);
    expect(full).toMatchObject({ state: 'failed', cancellation: 'cancelled' });
    const m = full.eip712.message;
    const { paymentRouterAbi } = await import('../../src/chain/artifacts/PaymentRouter.js');
    await expect(chain.publicClient.simulateContract({
      account: devnet.accounts[FUNDER]!.address, address: full.pay_to, abi: paymentRouterAbi, functionName: 'refund',
      args: [{ orderId: m.orderId as `0x${string}`, refundId: m.refundId as `0x${string}`, to: m.to as `0x${string}`, amount: BigInt(m.amount!), deadline: BigInt(m.deadline!) }, full.signature],
    })).rejects.toThrow(/RefundAlreadyUsed/);
    await context.close();
  });
});
