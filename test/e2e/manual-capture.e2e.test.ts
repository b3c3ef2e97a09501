import type { Browser, BrowserContext, Page } from 'playwright-core';
import { createWalletClient, erc20Abi, http, parseEther, parseUnits, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { paymentRouterAbi } from '../../src/chain/artifacts/PaymentRouter.js';
import { createPlatform, expectStatus, randomAddress, uniq, type Platform } from './helpers/api.js';
import { launchBrowser, newPage, shot } from './helpers/browser.js';
import { devnetClients } from './helpers/chain.js';
import { signIn, until } from './helpers/dashboard-wallet.js';
import { TestWallet } from './helpers/wallet.js';

const baseUrl = inject('baseUrl');
const devnet = inject('devnet');
const chain = devnetClients(devnet);
/** Dev account 8 funds this file's buyers (new keys, so every balance below moves only by what is tested). */
const funder = devnet.accounts[8]!;

type Split = { service_fee: string; platform_fee: string; merchant_gross: string; reserve_hold: string; merchant_available: string };
type Order = {
  id: string; state: string; amount: string; capture_method: string; capture_before: string | null;
  amount_authorized: string; amount_captured: string; void_reason: string | null; computed_split: Split;
};
type Parties = Record<'payer' | 'merchant' | 'platform' | 'treasury' | 'router', Address>;
const usdc = (human: string) => parseUnits(human, 6);

/**
 * Issue 27 (charge later) in Chromium: two manual-capture hosted checkouts, one paid gaslessly and one by
 * approve + pay, end "Authorized" with the buyer's money held by the router; then, from the dashboard's own
 * controls, one is captured in part and the other voided. Every step is checked on chain to the base unit
 * (payer, merchant, platform, treasury, router) and in the UI.
 */
describe('charge later: authorize at checkout, capture or void from the dashboard', () => {
  let browser: Browser;
  let platform: Platform;
  let merchantId: string;
  let merchantWallet: Address;
  let dashboard: { context: BrowserContext; page: Page };
  const authorized: { gasless?: { orderId: string; payer: Address }; approve?: { orderId: string; payer: Address } } = {};

  beforeAll(async () => {
    browser = await launchBrowser();
    platform = await createPlatform(baseUrl, { name: 'Alpine Rentals', feeBps: 250, reserveBps: 1000 });
    merchantId = uniq('skis_');
    merchantWallet = randomAddress();
    await expectStatus(platform.api('POST', '/v1/onboarding/merchants', { external_id: merchantId, name: 'Summit Ski Hire', merchant_wallet: merchantWallet, chain_id: 84532, reserve_bps: 1000 }), 201);
  });
  afterAll(async () => {
    await dashboard?.context.close();
    await browser?.close();
  });

  const funderWallet = createWalletClient({ account: privateKeyToAccount(funder.private_key), chain: chain.publicClient.chain, transport: http(devnet.rpc_url) });
  const confirm = async (hash: Hex) => {
    const r = await chain.publicClient.waitForTransactionReceipt({ hash });
    if (r.status !== 'success') throw new Error(`funding tx ${hash} reverted`);
  };
  const newBuyer = async (usdcAmount: string, eth: string) => {
    const key = generatePrivateKey();
    const address = privateKeyToAccount(key).address;
    await confirm(await funderWallet.writeContract({ address: devnet.usdc, abi: erc20Abi, functionName: 'transfer', args: [address, usdc(usdcAmount)] }));
    if (eth !== '0') await confirm(await funderWallet.sendTransaction({ to: address, value: parseEther(eth) }));
    return { key, address };
  };
  const parties = (payer: Address): Parties => ({ payer, merchant: merchantWallet, platform: platform.wallet, treasury: devnet.service_treasury, router: devnet.router });
  const held = () => chain.publicClient.readContract({ address: devnet.router, abi: paymentRouterAbi, functionName: 'held', args: [devnet.usdc] });
  /** Balance changes since `before`, per party, in base units. */
  const deltas = async (p: Parties, before: Record<string, bigint>) => {
    const after = await chain.balances(p);
    return Object.fromEntries(Object.keys(p).map((k) => [k, after[k]! - before[k]!]));
  };
  const createSession = (amount: string) =>
    expectStatus<{ session_token: string; order_id: string; url: string }>(
      platform.api('POST', '/v1/checkout/sessions', { merchant_id: merchantId, order_no: uniq('SKI-'), chain_id: 84532, token: 'USDC', amount, capture_method: 'manual' }),
      201,
    );
  const openCheckout = async (session: { url: string }, key: Hex, kind: 'eoa' | 'zero-eth') => {
    const wallet = new TestWallet({ privateKey: key, rpcUrl: devnet.rpc_url, chainId: devnet.chain_id, kind });
    const { context, page } = await newPage(browser);
    await wallet.install(page);
    await page.goto(`${baseUrl}${new URL(session.url).pathname}`);
    return { wallet, context, page };
  };
  const method = (page: Page) => page.locator('[data-method]').getAttribute('data-method');
  const status = (page: Page) => page.getByTestId('payment-status');

  /** The hosted page after the authorization: "Authorized", never "Paid" or "Confirmed"; the order is authorized. */
  const expectAuthorized = async (page: Page, orderId: string, amount: string) => {
    await page.waitForFunction(() => document.querySelector('[data-testid="payment-status"]')?.getAttribute('data-state') === 'confirmed', undefined, { timeout: 90_000 });
    expect(await status(page).textContent()).toContain('Authorized');
    expect(await status(page).textContent()).not.toMatch(/Confirmed|Paid/);
    await page.getByRole('heading', { level: 1, name: 'Authorization complete' }).waitFor();
    const order = await expectStatus<Order>(platform.api('GET', `/v1/orders/${orderId}`), 200);
    expect(order).toMatchObject({ state: 'authorized', capture_method: 'manual', void_reason: null });
    expect(usdc(order.amount_authorized)).toBe(usdc(amount));
    expect(usdc(order.amount_captured)).toBe(0n);
  };
  /** On chain after an authorization: the payer paid it all to the router, and nobody else got anything. */
  const expectHeld = (d: Record<string, bigint>, amount: string) => {
    expect(d).toEqual({ payer: -usdc(amount), router: usdc(amount), merchant: 0n, platform: 0n, treasury: 0n });
  };

  it('a gasless buyer is told before paying that this is an authorization, and the page ends "Authorized" with the money held by the router', async () => {
    const session = await createSession('10.00');
    const view = await expectStatus<{ order: Order }>(platform.api('GET', `/v1/checkout/sessions/${session.session_token}`), 200);
    expect(view.order.capture_method).toBe('manual');
    const captureBefore = view.order.capture_before!;
    expect(new Date(captureBefore).getTime()).toBeGreaterThan(Date.now() + 6 * 86_400_000);
    const buyer = await newBuyer('25', '0');
    const before = await chain.balances(parties(buyer.address));
    const heldBefore = await held();

    const { wallet, context, page } = await openCheckout(session, buyer.key, 'zero-eth');
    await page.getByText('Amount to authorize').waitFor();
    const notice = page.getByTestId('authorize-notice');
    await notice.waitFor();
    const text = (await notice.textContent())!;
    expect(text).toContain('10.00 USDC');
    expect(text).toContain('charged only when Summit Ski Hire captures');
    expect(text).toContain('Anything not captured comes back to your wallet automatically');
    // The deadline in the buyer's local time, as the browser formats capture_before.
    const local = await page.evaluate((iso) => new Intl.DateTimeFormat(undefined, { weekday: 'short', year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' }).format(new Date(iso)), captureBefore);
    expect(text).toContain(local);
    // The footer speaks of an authorization, not of funds moving straight to the recipients.
    expect(await page.locator('.public-footer').textContent()).toContain('Authorized funds wait in the payment contract until captured');
    await page.getByRole('button', { name: /Test Wallet/ }).click();
    await page.locator('[data-method]').waitFor();
    expect(await method(page)).toBe('gasless');
    await shot(page, 'manual-1-hosted-authorize');
    await page.getByRole('button', { name: 'Authorize 10.00 USDC' }).click();
    await expectAuthorized(page, session.order_id, '10.00');
    // Paid gaslessly: the summary no longer offers (or charges) a network fee in ETH.
    await expect.poll(async () => page.locator('.summary-note').textContent()).not.toContain('network fee');
    await shot(page, 'manual-2-hosted-authorized');
    expect(wallet.count('eth_signTypedData_v4')).toBe(1);
    expect(wallet.count('eth_sendTransaction')).toBe(0);

    expectHeld(await deltas(parties(buyer.address), before), '10.00');
    expect((await held()) - heldBefore).toBe(usdc('10.00'));
    // The link opened again says it is authorized, not paid.
    await page.reload();
    await page.getByRole('heading', { name: 'This payment is authorized' }).waitFor();
    authorized.gasless = { orderId: session.order_id, payer: buyer.address };
    await context.close();
  });

  it('a buyer approving then paying authorizes the same way', async () => {
    const session = await createSession('7.50');
    const buyer = await newBuyer('20', '1');
    const before = await chain.balances(parties(buyer.address));
    const { wallet, context, page } = await openCheckout(session, buyer.key, 'eoa');
    await page.getByRole('button', { name: /Test Wallet/ }).click();
    await page.locator('[data-method]').waitFor();
    for (let i = 0; i < 3 && (await method(page)) !== 'approve'; i++) await page.getByRole('button', { name: /^Or / }).click();
    expect(await method(page)).toBe('approve');
    await page.getByRole('button', { name: 'Approve 7.50 USDC' }).click();
    await page.getByRole('button', { name: 'Authorize 7.50 USDC' }).click({ timeout: 30_000 });
    await expectAuthorized(page, session.order_id, '7.50');
    expect(wallet.count('eth_sendTransaction')).toBe(2);
    expectHeld(await deltas(parties(buyer.address), before), '7.50');
    authorized.approve = { orderId: session.order_id, payer: buyer.address };
    await context.close();
  });

  it('the dashboard lists both as Authorized and captures 6.00 of the 10.00: the split of 6.00 is paid out, 4.00 goes back to the buyer', async () => {
    const { orderId, payer } = authorized.gasless!;
    expect(authorized.approve).toBeDefined();
    dashboard = await newPage(browser);
    const { page } = dashboard;
    await signIn(page, baseUrl, platform.email);
    await page.goto(`${baseUrl}/dashboard/orders?state=authorized`);
    const list = page.getByRole('table', { name: 'Orders' });
    await list.getByText(orderId).waitFor();
    await list.getByText(authorized.approve!.orderId).waitFor();
    expect(await list.locator('tbody tr').count()).toBe(2);
    expect(await list.locator('tbody tr .badge').allTextContents()).toEqual(['Authorized', 'Authorized']);
    await page.goto(`${baseUrl}/dashboard/balances`);
    await page.locator('.stat', { hasText: 'Authorized, not captured' }).getByText('17.50').waitFor();

    await page.goto(`${baseUrl}/dashboard/orders/${orderId}`);
    await page.locator('.page-title .badge', { hasText: 'Authorized' }).waitFor();
    await page.getByTestId('capture-deadline').getByText(/· in 6 d|· in 7 d/).waitFor();
    const before = await chain.balances(parties(payer));
    const heldBefore = await held();
    await page.getByRole('button', { name: 'Capture…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Capture payment' });
    const amount = dialog.getByLabel('Amount to capture');
    expect(await amount.inputValue()).toMatch(/^10(\.0+)?$/);
    await dialog.getByRole('button', { name: 'Capture 10.00 USDC' }).waitFor();
    await amount.fill('10.5');
    await dialog.getByText('At most the 10.00 USDC authorized.').waitFor();
    await amount.fill('6');
    const preview = dialog.getByTestId('capture-preview');
    await preview.getByText('Back to the buyer').waitFor();
    expect(await preview.textContent()).toContain('4.00 USDC');
    await shot(page, 'manual-3-capture-modal', { fullPage: false });
    await dialog.getByRole('button', { name: 'Capture 6.00 USDC' }).click();
    await page.getByTestId('capture-requested').getByText('Capture requested…').waitFor();
    await page.locator('.page-title .badge', { hasText: 'Confirmed' }).waitFor({ timeout: 90_000 });
    await shot(page, 'manual-4-captured');

    const figures = (await page.getByTestId('capture-figures').textContent())!;
    expect(figures).toMatch(/Authorized\s*10\.00 USDC/);
    expect(figures).toMatch(/Captured\s*6\.00 USDC/);
    expect(figures).toMatch(/Returned to the buyer\s*4\.00 USDC/);
    const order = await expectStatus<Order>(platform.api('GET', `/v1/orders/${orderId}`), 200);
    expect(order.state).toBe('confirmed');
    expect(usdc(order.amount_captured)).toBe(usdc('6.00'));
    const s = order.computed_split;
    const [service, plat, reserve, available] = [s.service_fee, s.platform_fee, s.reserve_hold, s.merchant_available].map(BigInt) as [bigint, bigint, bigint, bigint];
    expect(service + plat + reserve + available).toBe(usdc('6.00'));
    // On chain, to the base unit: the captured split paid out, the rest back to the buyer, the reserve stays in the router.
    expect(await deltas(parties(payer), before)).toEqual({ payer: usdc('4.00'), treasury: service, platform: plat, merchant: available, router: -(usdc('10.00') - reserve) });
    expect(heldBefore - (await held())).toBe(usdc('10.00'));
  });

  it('voids the other authorization from the dashboard: all 7.50 back to the buyer, nobody paid, the reason in plain words', async () => {
    const { orderId, payer } = authorized.approve!;
    const { page } = dashboard;
    await page.goto(`${baseUrl}/dashboard/orders/${orderId}`);
    await page.locator('.page-title .badge', { hasText: 'Authorized' }).waitFor();
    const before = await chain.balances(parties(payer));
    await page.getByRole('button', { name: 'Void', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Void this authorization?' });
    expect(await dialog.textContent()).toContain('7.50 USDC');
    await dialog.getByRole('button', { name: 'Void authorization' }).click();
    await page.getByTestId('capture-requested').getByText('Void requested…').waitFor();
    await page.locator('.page-title .badge', { hasText: 'Voided' }).waitFor({ timeout: 90_000 });
    const figures = (await page.getByTestId('capture-figures').textContent())!;
    expect(figures).toMatch(/Captured\s*0\.00 USDC/);
    expect(figures).toMatch(/Returned to the buyer\s*7\.50 USDC/);
    expect(figures).toContain('Voided from the dashboard or the API before any capture.');
    await shot(page, 'manual-5-voided');
    const order = await expectStatus<Order>(platform.api('GET', `/v1/orders/${orderId}`), 200);
    expect(order).toMatchObject({ state: 'voided', void_reason: 'requested' });
    expect(await deltas(parties(payer), before)).toEqual({ payer: usdc('7.50'), router: -usdc('7.50'), merchant: 0n, platform: 0n, treasury: 0n });

    // The ledger says where the money went, in plain words; the Voided filter finds the order.
    await page.goto(`${baseUrl}/dashboard/balances`);
    const ledger = page.getByRole('table', { name: 'Balance transactions' });
    await ledger.getByText('Authorization voided, returned to the buyer').first().waitFor();
    await ledger.getByText('Not captured, returned to the buyer').first().waitFor();
    await page.getByText('Authorized, not captured').waitFor();
    await page.goto(`${baseUrl}/dashboard/orders?state=voided`);
    await page.getByRole('table', { name: 'Orders' }).getByText(orderId).waitFor();
  });
});
