import type { Browser } from 'playwright-core';
import { createWalletClient, erc20Abi, http, parseEther, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { subscriptionManagerAbi } from '../../src/chain/subscription-manager-abi.js';
import { createPlatform, expectStatus, randomAddress, uniq, type Platform } from './helpers/api.js';
import { launchBrowser, newPage, shot } from './helpers/browser.js';
import { dashboardChain, signIn, until } from './helpers/dashboard-wallet.js';
import { TestWallet } from './helpers/wallet.js';

const baseUrl = inject('baseUrl');
const devnet = inject('devnet');
const chain = dashboardChain(devnet);
const FUNDER = 9;

/** A payer of its own (no allowance left over from another test): devnet ETH for gas and 100 USDC from a dev account. */
async function freshPayer(): Promise<{ key: Hex; address: Address }> {
  const key = generatePrivateKey();
  const address = privateKeyToAccount(key).address;
  await chain.publicClient.request({ method: 'anvil_setBalance' as never, params: [address, `0x${parseEther('1').toString(16)}`] as never });
  const funder = createWalletClient({ account: privateKeyToAccount(devnet.accounts[FUNDER]!.private_key), chain: chain.chain, transport: http(devnet.rpc_url) });
  const hash = await funder.writeContract({ address: devnet.usdc, abi: erc20Abi, functionName: 'transfer', args: [address, 100_000_000n] });
  await chain.publicClient.waitForTransactionReceipt({ hash });
  return { key, address };
}

describe('hosted subscription pages', () => {
  let browser: Browser;
  let platform: Platform;
  const merchantId = uniq('saas_');
  const merchantWallet = randomAddress();

  beforeAll(async () => {
    browser = await launchBrowser();
    platform = await createPlatform(baseUrl, { name: 'Cloudy SaaS', feeBps: 300, reserveBps: 1000 });
    await expectStatus(platform.api('POST', '/v1/onboarding/merchants', { external_id: merchantId, name: 'Pixel Fonts', merchant_wallet: merchantWallet, chain_id: 84532, reserve_bps: 1000 }), 201);
  });
  afterAll(async () => {
    await browser?.close();
  });

  const create = (extra: Record<string, unknown> = {}) =>
    expectStatus(platform.api('POST', '/v1/subscriptions', { merchant_id: merchantId, chain_id: 84532, token: 'USDC', amount: '4.20', interval: 'month', max_periods: 6, ...extra }), 201);
  const pagePath = (sub: { url: string }) => `${baseUrl}${new URL(sub.url).pathname}`;
  /** The first charge, confirmed, through the orders list's subscription filter (only this subscription's orders). */
  const firstCharge = (sub: { id: string }, payer: Address) =>
    until<any>(platform.api, `/v1/orders?subscription_id=${sub.id}`, (b) => b.data.some((o: any) => o.state === 'confirmed'), 90_000)
      .then((b) => {
        expect(b.data.every((o: any) => o.subscription_id === sub.id)).toBe(true);
        const o = b.data.find((x: any) => x.state === 'confirmed');
        expect(o).toMatchObject({ subscription_period: 0, paid_by: payer });
        return o;
      });

  /** Opens the hosted page, connects the test wallet and checks the terms the payer is shown. */
  async function openSubscribe(sub: { url: string }, payer: { key: Hex }) {
    const wallet = new TestWallet({ privateKey: payer.key, rpcUrl: devnet.rpc_url, chainId: devnet.chain_id });
    const { context, page } = await newPage(browser);
    await wallet.install(page);
    await page.goto(pagePath(sub));
    await page.getByText('Pixel Fonts', { exact: true }).first().waitFor();
    expect(await page.getByTestId('subscription-amount').textContent()).toContain('4.20');
    expect(await page.getByTestId('exposure').textContent()).toContain('at most 4.20 USDC per month');
    expect(await page.locator('.public-footer').textContent()).toContain('at most the amount shown once per period');
    await page.getByRole('button', { name: /Test Wallet/ }).click();
    return { wallet, context, page };
  }

  it('permit path: a rejected signature is told in words, then permit + signature activate it; the first charge and the dashboard show it', async () => {
    const sub = await create({ success_url: `${baseUrl}/dashboard` });
    const payer = await freshPayer();
    const { wallet, context, page } = await openSubscribe(sub, payer);
    await page.locator('[data-method="permit"]').waitFor();
    await shot(page, 'subscribe-1-permit');
    const subscribe = page.getByRole('button', { name: 'Subscribe for 4.20 USDC per month' });
    wallet.rejectNextRequest('eth_signTypedData_v4');
    await subscribe.click();
    await page.getByText('You rejected the request in your wallet.').waitFor();
    await subscribe.click();
    await page.getByRole('heading', { name: 'Subscription active' }).waitFor({ timeout: 30_000 });
    await shot(page, 'subscribe-2-active');
    expect(wallet.count('eth_signTypedData_v4')).toBe(3); // refused, permit, permission
    expect(wallet.count('eth_sendTransaction')).toBe(0); // no transaction from the payer at all
    await page.waitForURL(`${baseUrl}/dashboard**`, { timeout: 15_000 });
    await context.close();

    const charge = await firstCharge(sub, payer.address);
    expect(charge.amount).toBe('4.20');
    expect(await chain.usdcBalance(payer.address)).toBe(100_000_000n - 4_200_000n);
    const allowance = await chain.publicClient.readContract({ address: devnet.usdc, abi: erc20Abi, functionName: 'allowance', args: [payer.address, devnet.subscription_manager] });
    expect(allowance).toBe(4_200_000n * 6n - 4_200_000n); // the permit gave amount × max_periods; the first charge used one

    const dash = await newPage(browser);
    await signIn(dash.page, baseUrl, platform.email);
    await dash.page.getByRole('link', { name: 'Subscriptions' }).click();
    await dash.page.getByRole('button', { name: 'Active' }).click();
    await dash.page.getByRole('link', { name: sub.id }).click();
    await dash.page.getByTestId('subscription-state').getByText('Active').waitFor();
    const row = dash.page.getByRole('table', { name: 'Charges' }).getByRole('row').nth(1);
    await row.getByText('Confirmed').waitFor({ timeout: 30_000 });
    expect(await dash.page.getByRole('table', { name: 'Charges' }).getByRole('row').count()).toBe(2); // the header and this subscription's one charge
    expect(await row.getByRole('cell').nth(1).textContent()).toBe('0'); // the first period, 0 as the API numbers it
    expect(await row.textContent()).toContain('4.20');
    expect(await dash.page.getByTestId('next-charge').textContent()).not.toBe('—');
    await shot(dash.page, 'subscriptions-dashboard-detail');
    await row.getByRole('link', { name: charge.order_no }).click();
    await dash.page.waitForURL(`**/dashboard/orders/${charge.id}`);
    await dash.context.close();
  });

  it('approve path, then the payer stops it from the manage page with revoke(p) on chain; it shows canceled (payer_revoked)', async () => {
    const sub = await create();
    const payer = await freshPayer();
    const { wallet, context, page } = await openSubscribe(sub, payer);
    await page.getByRole('button', { name: 'Or approve with a transaction instead' }).click();
    await page.locator('[data-method="approve"]').waitFor();
    await page.getByRole('button', { name: 'Subscribe for 4.20 USDC per month' }).click();
    await page.getByRole('heading', { name: 'Subscription active' }).waitFor({ timeout: 30_000 });
    expect(wallet.count('eth_sendTransaction')).toBe(1);
    expect(wallet.count('eth_signTypedData_v4')).toBe(1);
    const charge = await firstCharge(sub, payer.address);
    await context.close();

    // The payer comes back later through the management link, in a new browser session.
    const manage = await newPage(browser);
    const payerWallet = new TestWallet({ privateKey: payer.key, rpcUrl: devnet.rpc_url, chainId: devnet.chain_id });
    await payerWallet.install(manage.page);
    const page2 = manage.page;
    await page2.goto(`${pagePath(sub)}/manage`);
    await page2.getByTestId('subscription-state').getByText('Active').waitFor();
    await page2.getByText('Charges so far').waitFor();
    // The charge the payer has paid: period, amount, date, state and its transaction.
    const charges = page2.getByTestId('manage-charges');
    const paid = charges.getByRole('row').nth(1);
    await paid.getByText('Paid').waitFor();
    expect(await charges.getByRole('row').count()).toBe(2);
    expect(await paid.getByRole('cell').nth(0).textContent()).toBe('0');
    expect(await paid.getByRole('cell').nth(1).textContent()).toBe('4.20 USDC');
    expect(await paid.getByRole('cell').nth(2).textContent()).not.toBe('—');
    await paid.locator(`[title="${charge.tx_hash}"]`).waitFor();
    await shot(page2, 'subscribe-manage-charges');
    await page2.getByRole('button', { name: /Test Wallet/ }).click();
    await page2.getByRole('button', { name: 'Stop subscription' }).click();
    await page2.getByTestId('subscription-state').getByText('Canceled').waitFor({ timeout: 60_000 });
    await page2.getByText('You stopped it from your wallet.').first().waitFor();
    await shot(page2, 'subscribe-manage-canceled');
    await manage.context.close();
    const sent = payerWallet.calls.filter((c) => c.method === 'eth_sendTransaction');
    expect(sent).toHaveLength(1);
    expect(((sent[0]!.params[0] as { to: string }).to).toLowerCase()).toBe(devnet.subscription_manager.toLowerCase());

    const after = await until<any>(platform.api, `/v1/subscriptions/${sub.id}`, (s) => s.state === 'canceled');
    expect(after.cancel_reason).toBe('payer_revoked');
    const revoked = await chain.publicClient.readContract({ address: devnet.subscription_manager, abi: subscriptionManagerAbi, functionName: 'revoked', args: [after.permission_hash] });
    expect(revoked).toBe(true);
  });

  it('the dashboard cancels at once after a confirmation; the subscription shows canceled_by_platform', async () => {
    const sub = await create();
    const payer = await freshPayer();
    const read = await expectStatus(platform.api('GET', `/v1/subscriptions/authorize/${new URL(sub.url).pathname.split('/').pop()}`), 200) as any;
    const t = read.typed_data;
    const message = { ...t.message, payer: payer.address, amount: BigInt(t.message.amount), salt: BigInt(t.message.salt) };
    const signature = await privateKeyToAccount(payer.key).signTypedData({ domain: t.domain, types: t.types, primaryType: 'SpendPermission', message });
    const token = new URL(sub.url).pathname.split('/').pop()!;
    await expectStatus(platform.api('POST', `/v1/subscriptions/authorize/${token}`, { payer: payer.address, start: t.message.start, signature }), 200);

    const dash = await newPage(browser);
    await signIn(dash.page, baseUrl, platform.email);
    await dash.page.goto(`${baseUrl}/dashboard/subscriptions/${sub.id}`);
    await dash.page.getByRole('button', { name: 'Cancel subscription' }).click();
    const dialog = dash.page.getByRole('dialog');
    await dialog.getByRole('radio', { name: /Now: the permission is revoked/ }).check();
    await dialog.getByRole('button', { name: 'Cancel now' }).click();
    await dash.page.getByTestId('subscription-state').getByText('Canceled').waitFor();
    await dash.page.getByText('Canceled by platform', { exact: false }).waitFor();
    await dash.context.close();
    const after = await expectStatus(platform.api('GET', `/v1/subscriptions/${sub.id}`), 200) as any;
    expect(after).toMatchObject({ state: 'canceled', cancel_reason: 'canceled_by_platform' });
  });

  it('open-ended: the manage page shows how many charges the allowance covers; running low, the payer allows 12 more with one approve', async () => {
    const sub = await expectStatus(platform.api('POST', '/v1/subscriptions', { merchant_id: merchantId, chain_id: 84532, token: 'USDC', amount: '4.20', interval: 'month' }), 201) as any;
    const payer = await freshPayer();
    const { context, page } = await openSubscribe(sub, payer);
    await page.getByRole('button', { name: 'Or approve with a transaction instead' }).click();
    await page.getByRole('button', { name: 'Subscribe for 4.20 USDC per month' }).click();
    await page.getByRole('heading', { name: 'Subscription active' }).waitFor({ timeout: 30_000 });
    await firstCharge(sub, payer.address);
    await context.close();
    const allowanceOf = () => chain.publicClient.readContract({ address: devnet.usdc, abi: erc20Abi, functionName: 'allowance', args: [payer.address, devnet.subscription_manager] });
    expect(await allowanceOf()).toBe(4_200_000n * 11n); // approve gave a year (12 charges), the first charge used one

    // The payer's wallet lowered the allowance elsewhere: one charge left.
    const own = createWalletClient({ account: privateKeyToAccount(payer.key), chain: chain.chain, transport: http(devnet.rpc_url) });
    await chain.publicClient.waitForTransactionReceipt({ hash: await own.writeContract({ address: devnet.usdc, abi: erc20Abi, functionName: 'approve', args: [devnet.subscription_manager, 4_200_000n] }) });

    const manage = await newPage(browser);
    const wallet = new TestWallet({ privateKey: payer.key, rpcUrl: devnet.rpc_url, chainId: devnet.chain_id });
    await wallet.install(manage.page);
    await manage.page.goto(`${pagePath(sub)}/manage`);
    const covers = manage.page.getByTestId('allowance-covers');
    await covers.getByText('Your wallet allows 4.20 USDC: 1 more charge.').waitFor();
    await manage.page.getByText('Running low').waitFor();
    expect(await manage.page.getByRole('button', { name: /Allow 12 more charges/ }).count()).toBe(0); // not before the paying wallet is connected
    await manage.page.getByRole('button', { name: /Test Wallet/ }).click();
    await manage.page.getByRole('button', { name: 'Allow 12 more charges (50.40 USDC)' }).click();
    await covers.getByText('Your wallet allows 50.40 USDC: 12 more charges.').waitFor({ timeout: 30_000 });
    expect(await manage.page.getByText('Running low').count()).toBe(0);
    await shot(manage.page, 'subscribe-manage-allowance');
    await manage.context.close();
    expect(await allowanceOf()).toBe(4_200_000n * 12n);
    const sent = wallet.calls.filter((c) => c.method === 'eth_sendTransaction');
    expect(sent).toHaveLength(1);
    expect(((sent[0]!.params[0] as { to: string }).to).toLowerCase()).toBe(devnet.usdc.toLowerCase());
    expect((await expectStatus(platform.api('GET', `/v1/subscriptions/${sub.id}`), 200) as any).state).toBe('active');
  });

  it('an unknown link says so in plain words', async () => {
    const { page, context } = await newPage(browser);
    await page.goto(`${baseUrl}/subscribe/sub_live_${'x'.repeat(32)}`);
    await page.getByRole('heading', { name: 'Subscription not found' }).waitFor();
    await context.close();
  });
});
