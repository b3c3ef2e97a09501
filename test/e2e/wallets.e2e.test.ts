import type { Browser, Page } from 'playwright-core';
import { createWalletClient, erc20Abi, http, parseEther, parseUnits, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createPlatform, expectStatus, randomAddress, uniq, type Platform } from './helpers/api.js';
import { launchBrowser, newPage, shot } from './helpers/browser.js';
import { devnetClients } from './helpers/chain.js';
import { LocalMerchant, verifySignature } from './helpers/receiver.js';
import { deploySafeAccount } from './helpers/safe-account.js';
import { TestWallet, type WalletOptions } from './helpers/wallet.js';

const baseUrl = inject('baseUrl');
const devnet = inject('devnet');
const chain = devnetClients(devnet);
/** Dev account 8 funds the buyers of this file (USDC and, for those that pay gas, ETH); 9 owns the Safe. */
const funder = devnet.accounts[8]!;
const safeOwner = devnet.accounts[9]!;

/**
 * Issue 17 in Chromium: the page picks gasless, then a batched EIP-5792 call, then a permit, then approve +
 * pay, and falls through on each failure. Every payment ends confirmed, with the webhook received and the
 * split exact to the base unit on-chain.
 */
describe('hosted checkout: wallet kinds and payment methods', () => {
  let browser: Browser;
  let platform: Platform;
  let shop: LocalMerchant;
  let merchantId: string;
  let merchantWallet: Address;
  let webhookSecret: string;

  beforeAll(async () => {
    browser = await launchBrowser();
    shop = await new LocalMerchant().start();
    platform = await createPlatform(baseUrl, { name: 'Tidewater Goods', feeBps: 300, reserveBps: 500 });
    merchantId = uniq('kiosk_');
    merchantWallet = randomAddress();
    await expectStatus(platform.api('POST', '/v1/onboarding/merchants', { external_id: merchantId, name: 'Lantern Books', merchant_wallet: merchantWallet, chain_id: 84532, reserve_bps: 700 }), 201);
    const endpoint = await expectStatus(platform.api('POST', '/v1/webhooks/endpoints', { url: `${shop.url}/hooks`, subscribed_events: ['order.confirmed'] }), 201);
    webhookSecret = endpoint.secret;
  });
  afterAll(async () => {
    await browser?.close();
    await shop?.stop();
  });

  const funderWallet = createWalletClient({ account: privateKeyToAccount(funder.private_key), chain: chain.publicClient.chain, transport: http(devnet.rpc_url) });
  const confirm = async (hash: Hex) => {
    const r = await chain.publicClient.waitForTransactionReceipt({ hash });
    if (r.status !== 'success') throw new Error(`funding tx ${hash} reverted`);
  };
  /** A new buyer holding `usdc` and `eth` (zero for the gasless buyer). */
  const fund = async (to: Address, usdc: string, eth: string) => {
    await confirm(await funderWallet.writeContract({ address: devnet.usdc, abi: erc20Abi, functionName: 'transfer', args: [to, parseUnits(usdc, 6)] }));
    if (eth !== '0') await confirm(await funderWallet.sendTransaction({ to, value: parseEther(eth) }));
  };

  const createSession = async (amount: string) => {
    const orderNo = uniq('W-');
    const session = await expectStatus(
      platform.api('POST', '/v1/checkout/sessions', { merchant_id: merchantId, order_no: orderNo, chain_id: 84532, token: 'USDC', amount, success_url: `${shop.url}/success?order=${orderNo}` }),
      201,
    );
    const view = await expectStatus(platform.api('GET', `/v1/checkout/sessions/${session.session_token}`), 200);
    return { session, view, url: `${baseUrl}${new URL(session.url).pathname}` };
  };

  /** Opens the page with this wallet, connects, and waits for the pay button. */
  const open = async (url: string, opts: Omit<WalletOptions, 'rpcUrl' | 'chainId'>) => {
    const wallet = new TestWallet({ ...opts, rpcUrl: devnet.rpc_url, chainId: devnet.chain_id });
    const { context, page } = await newPage(browser);
    await wallet.install(page);
    await page.goto(url);
    await page.getByRole('button', { name: /Test Wallet/ }).click();
    await page.locator('[data-method]').waitFor();
    return { wallet, context, page };
  };
  const method = (page: Page) => page.locator('[data-method]').getAttribute('data-method');
  /** Records every state the live badge shows from now on. */
  const recordBadge = (page: Page) =>
    page.evaluate(() => {
      const w = window as unknown as { __badge: string[] };
      w.__badge = [];
      const el = document.querySelector('[data-testid="payment-status"]')!;
      new MutationObserver(() => {
        const s = el.getAttribute('data-state') ?? '';
        if (w.__badge[w.__badge.length - 1] !== s) w.__badge.push(s);
      }).observe(el, { attributes: true, attributeFilter: ['data-state'] });
    });
  const badge = (page: Page) => page.evaluate(() => (window as unknown as { __badge: string[] }).__badge);

  /** Confirmed on the page, in the webhook and on-chain, to the base unit. */
  const expectPaid = async (page: Page, s: Awaited<ReturnType<typeof createSession>>, payer: Address, before: Record<string, bigint>) => {
    await page.waitForURL(`${shop.url}/success**`, { timeout: 90_000 });
    const hook = await shop.waitFor((r) => r.body.type === 'order.confirmed' && r.body.data.object.id === s.session.order_id, 60_000);
    expect(verifySignature(hook, webhookSecret)).toBe(true);
    const order = await expectStatus(platform.api('GET', `/v1/orders/${s.session.order_id}`), 200);
    expect(order.state).toBe('confirmed');
    expect(order.paid_by?.toLowerCase()).toBe(payer.toLowerCase());
    const after = await chain.balances(parties(payer));
    const split = s.view.order.computed_split;
    const delta = (k: string) => after[k]! - before[k]!;
    expect(delta('treasury')).toBe(BigInt(split.service_fee));
    expect(delta('platform')).toBe(BigInt(split.platform_fee));
    expect(delta('merchant')).toBe(BigInt(split.merchant_available));
    expect(delta('router')).toBe(BigInt(split.reserve_hold));
    expect(delta('payer')).toBe(-BigInt(s.view.order.eip712.message.amount));
  };
  const parties = (payer: Address) => ({ treasury: devnet.service_treasury, platform: platform.wallet, merchant: merchantWallet, router: devnet.router, payer });

  it('on the devnet offers no Coinbase Smart Wallet (it cannot reach this chain), loads no SDK and reaches no other host', async () => {
    const { url } = await createSession('1.00');
    const { context, page } = await newPage(browser);
    const foreign: string[] = [];
    page.on('request', (r) => {
      const host = new URL(r.url()).hostname;
      if (!['127.0.0.1', 'localhost'].includes(host) && !r.url().startsWith('data:')) foreign.push(r.url());
    });
    await page.goto(url);
    await page.getByText('No wallet found in this browser').waitFor();
    expect(await page.getByRole('button', { name: /Coinbase Smart Wallet/ }).count()).toBe(0);
    expect(await page.getByText(/Smart Wallet/).count()).toBe(0); // nor the hint to use one
    await page.waitForTimeout(1_500);
    expect(foreign).toEqual([]);
    const sdkStorage = await page.evaluate(() => Object.keys(localStorage).filter((k) => k.includes('CBWSDK')));
    expect(sdkStorage).toEqual([]);
    await shot(page, 'wallets-1-devnet-no-smart-wallet');
    await context.close();

    // The Coinbase Wallet extension (EIP-6963, rdns com.coinbase.wallet) is offered like any browser wallet.
    const extension = new TestWallet({ privateKey: generatePrivateKey(), rpcUrl: devnet.rpc_url, chainId: devnet.chain_id, info: { name: 'Coinbase Wallet', rdns: 'com.coinbase.wallet' } });
    const { context: c2, page: p2 } = await newPage(browser);
    await extension.install(p2);
    await p2.goto(url);
    await p2.getByRole('button', { name: /^Coinbase Wallet\b/ }).waitFor();
    expect(await p2.getByRole('button', { name: /Coinbase Smart Wallet/ }).count()).toBe(0);
    await c2.close();
  });

  it('a zero-ETH buyer pays gaslessly: one signature, the relayer pays the gas', async () => {
    const s = await createSession('4.21');
    expect(s.view.gasless, 'the service offers gasless checkout (issue 17 server side)').toMatchObject({ enabled: true, reason: null });
    const key = generatePrivateKey();
    const buyer = privateKeyToAccount(key).address;
    await fund(buyer, '10', '0');
    expect(await chain.publicClient.getBalance({ address: buyer })).toBe(0n);
    const before = await chain.balances(parties(buyer));
    const { wallet, context, page } = await open(s.url, { privateKey: key, kind: 'zero-eth' });
    expect(await method(page)).toBe('gasless');
    await shot(page, 'wallets-2-gasless');
    await recordBadge(page);
    await page.getByRole('button', { name: 'Pay 4.21 USDC' }).click();
    await page.getByText("Trisettle's relayer sent your signed payment").waitFor();
    await page.waitForFunction(() => document.querySelector('[data-testid="payment-status"]')?.getAttribute('data-state') === 'confirmed', undefined, { timeout: 60_000 });
    // The same live badge as a payment the buyer sends: submitted, confirming, confirmed.
    const states = await badge(page);
    expect(states[0]).toBe('submitted');
    expect(states[states.length - 1]).toBe('confirmed');
    expect(states.filter((x) => !['submitted', 'confirming', 'confirmed'].includes(x))).toEqual([]);
    await expectPaid(page, s, buyer, before);
    expect(wallet.count('eth_signTypedData_v4')).toBe(1);
    expect(wallet.count('eth_sendTransaction')).toBe(0);
    expect(await chain.publicClient.getBalance({ address: buyer })).toBe(0n);
    const after = await expectStatus(platform.api('GET', `/v1/checkout/sessions/${s.session.session_token}`), 200);
    expect(after.gasless.relay).toMatchObject({ state: expect.stringMatching(/^(submitted|succeeded)$/) });
    await context.close();
  });

  it('a smart wallet (Safe) pays with ONE batched confirmation: approve + payOrder in a single wallet_sendCalls', async () => {
    const safe = await deploySafeAccount(chain.publicClient, devnet.rpc_url, safeOwner.private_key);
    await fund(safe.address, '20', '0');
    const s = await createSession('15.05');
    const before = await chain.balances(parties(safe.address));
    const { wallet, context, page } = await open(s.url, { privateKey: safeOwner.private_key, kind: 'smart', safe });
    if ((await method(page)) === 'gasless') await page.getByRole('button', { name: 'Or pay in one confirmation' }).click();
    expect(await method(page)).toBe('batched');
    await shot(page, 'wallets-3-batched');
    await page.getByRole('button', { name: 'Pay 15.05 USDC' }).click();
    await expectPaid(page, s, safe.address, before);
    expect(wallet.count('wallet_sendCalls')).toBe(1);
    expect(wallet.count('eth_sendTransaction')).toBe(0);
    expect(wallet.count('eth_signTypedData_v4')).toBe(0);
    const calls = (wallet.calls.find((c) => c.method === 'wallet_sendCalls')!.params[0] as { calls: { to: string }[]; atomicRequired: boolean });
    expect(calls.atomicRequired).toBe(true);
    expect(calls.calls.map((c) => c.to.toLowerCase())).toEqual([devnet.usdc.toLowerCase(), devnet.router.toLowerCase()]);
    expect(await chain.publicClient.readContract({ address: devnet.usdc, abi: erc20Abi, functionName: 'allowance', args: [safe.address, devnet.router] })).toBe(0n);
    await context.close();
  });

  it('a smart wallet (Safe) pays gaslessly: its ERC-1271 signature is checked by USDC through the account', async () => {
    const safe = await deploySafeAccount(chain.publicClient, devnet.rpc_url, safeOwner.private_key);
    await fund(safe.address, '5', '0');
    const s = await createSession('3.33');
    const before = await chain.balances(parties(safe.address));
    const ownerEth = await chain.publicClient.getBalance({ address: safeOwner.address });
    const { wallet, context, page } = await open(s.url, { privateKey: safeOwner.private_key, kind: 'smart', safe });
    expect(await method(page)).toBe('gasless');
    await page.getByRole('button', { name: 'Pay 3.33 USDC' }).click();
    await expectPaid(page, s, safe.address, before);
    expect(wallet.count('eth_signTypedData_v4')).toBe(1);
    expect(wallet.count('wallet_sendCalls') + wallet.count('eth_sendTransaction')).toBe(0);
    expect(await chain.publicClient.getBalance({ address: safeOwner.address })).toBe(ownerEth);
    await context.close();
  });

  it('a wallet without gasless or batching falls back to a permit', async () => {
    const s = await createSession('6.66');
    const key = generatePrivateKey();
    const buyer = privateKeyToAccount(key).address;
    await fund(buyer, '10', '1');
    const before = await chain.balances(parties(buyer));
    const { wallet, context, page } = await open(s.url, { privateKey: key });
    const refused = (await method(page)) === 'gasless' ? 1 : 0;
    if (refused) {
      // This wallet will not sign the gasless authorization: the page says so and offers the permit.
      wallet.rejectNextRequest('eth_signTypedData_v4');
      await page.getByRole('button', { name: 'Pay 6.66 USDC' }).click();
      await page.getByText('You rejected the request in your wallet. You can sign a permit and pay in one transaction instead.').waitFor();
    }
    expect(await method(page)).toBe('permit');
    await shot(page, 'wallets-4-permit');
    await page.getByRole('button', { name: 'Pay 6.66 USDC' }).click();
    await expectPaid(page, s, buyer, before);
    expect(wallet.count('eth_signTypedData_v4')).toBe(1 + refused);
    expect(wallet.count('eth_sendTransaction')).toBe(1);
    expect(wallet.count('wallet_sendCalls')).toBe(0);
    await context.close();
  });

  it('a relay the service refuses (4xx) falls through to the next method with the service\'s reason', async () => {
    const s = await createSession('1.11');
    const key = generatePrivateKey();
    const buyer = privateKeyToAccount(key).address;
    await fund(buyer, '5', '1');
    const before = await chain.balances(parties(buyer));
    const { wallet, context, page } = await open(s.url, { privateKey: key });
    expect(await method(page)).toBe('gasless');
    // The service's answer is replaced in the browser by the refusal it gives at its daily cap: nothing reaches it.
    let relayPosts = 0;
    await page.route(`**/v1/checkout/sessions/${s.session.session_token}/relay`, (route) => {
      relayPosts++;
      return route.fulfill({ status: 429, json: { error: { type: 'rate_limit_error', code: 'gasless_cap_reached', message: 'Gasless payments for this platform have reached their daily limit.', request_id: 'req_test' } } });
    });
    await page.getByRole('button', { name: 'Pay 1.11 USDC' }).click();
    await page.getByText('Gasless payments for this platform have reached their daily limit. You can sign a permit and pay in one transaction instead.').waitFor();
    expect(await method(page)).toBe('permit');
    await page.getByRole('button', { name: 'Pay 1.11 USDC' }).click();
    await expectPaid(page, s, buyer, before);
    expect(relayPosts).toBe(1);
    expect(wallet.count('eth_signTypedData_v4')).toBe(2);
    expect(wallet.count('eth_sendTransaction')).toBe(1);
    await context.close();
  });

  it('a wallet refusing the permit falls back to approve + pay', async () => {
    const s = await createSession('2.02');
    const key = generatePrivateKey();
    const buyer = privateKeyToAccount(key).address;
    await fund(buyer, '10', '1');
    const before = await chain.balances(parties(buyer));
    const { wallet, context, page } = await open(s.url, { privateKey: key });
    const gasless = (await method(page)) === 'gasless' ? 1 : 0;
    wallet.rejectNextRequest('eth_signTypedData_v4', 1 + gasless);
    if (gasless) {
      await page.getByRole('button', { name: 'Pay 2.02 USDC' }).click();
      await page.getByText(/You can sign a permit/).waitFor();
    }
    expect(await method(page)).toBe('permit');
    await page.getByRole('button', { name: 'Pay 2.02 USDC' }).click();
    await page.getByText('You rejected the request in your wallet. You can approve, then pay instead.').waitFor();
    expect(await method(page)).toBe('approve');
    await shot(page, 'wallets-5-approve-fallback');
    await page.getByRole('button', { name: 'Approve 2.02 USDC' }).click();
    await page.getByRole('button', { name: 'Pay 2.02 USDC' }).click({ timeout: 30_000 });
    await expectPaid(page, s, buyer, before);
    expect(wallet.count('eth_signTypedData_v4')).toBe(1 + gasless);
    expect(wallet.count('eth_sendTransaction')).toBe(2);
    await context.close();
  });
});
