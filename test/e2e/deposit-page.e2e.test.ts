import type { Browser, Page } from 'playwright-core';
import { createWalletClient, erc20Abi, getAddress, http, parseUnits, type Address } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { qrPath } from '../../web/src/pages/checkout/deposit/qr-path.js';
import { createPlatform, expectStatus, randomAddress, uniq, type Platform } from './helpers/api.js';
import { launchBrowser, newPage, shot } from './helpers/browser.js';
import { devnetClients } from './helpers/chain.js';

const baseUrl = inject('baseUrl');
const devnet = inject('devnet');
const chain = devnetClients(devnet);
// anvil's account 1: no other e2e file pays with it, so its nonce is this file's alone.
const SENDER = devnet.accounts[1]!;

type DepositOrder = { id: string; state: string; deposit_address: string | null; refund_address: string | null; amount_received: string; amount_due: string; payment_method?: string | null };
type PublicSession = { order: DepositOrder };
type Created = { session_token: string; url: string; order_id: string };

/**
 * Issue 38 on the hosted page: a buyer with no wallet to connect pays by plain USDC transfers (as from an
 * exchange) to the order's deposit address. The page asks for the refund address first, then shows the deposit
 * address (text and QR), the amount due, and follows the transfers to the paid panel.
 */
describe('hosted checkout: pay by plain transfer to a deposit address', () => {
  let browser: Browser;
  let platform: Platform;
  let merchantId: string;

  beforeAll(async () => {
    browser = await launchBrowser();
    platform = await createPlatform(baseUrl, { name: 'Deposit Market', feeBps: 250, reserveBps: 1000 });
    merchantId = uniq('deposit_');
    await expectStatus(platform.api('POST', '/v1/onboarding/merchants', { external_id: merchantId, name: 'Harbor Books', merchant_wallet: randomAddress(), chain_id: 84532, reserve_bps: 1000 }), 201);
  });
  afterAll(async () => {
    await browser?.close();
  });

  const read = (token: string) => expectStatus<PublicSession>(platform.api('GET', `/v1/checkout/sessions/${token}`), 200);
  const send = async (to: Address, amount: bigint) => {
    const wallet = createWalletClient({ account: privateKeyToAccount(SENDER.private_key), chain: chain.publicClient.chain, transport: http(devnet.rpc_url) });
    const hash = await wallet.writeContract({ address: devnet.usdc, abi: erc20Abi, functionName: 'transfer', args: [to, amount] });
    expect((await chain.publicClient.waitForTransactionReceipt({ hash })).status).toBe('success');
  };

  // Shared by the two cases: the second pays the order the first opened, on the page the first left open.
  let session: Created;
  let page: Page;
  let deposit: Address;

  it('asks for the refund address (refusing a mistyped one), then shows the deposit address, its QR and the amount due', async () => {
    session = await expectStatus<Created>(
      platform.api('POST', '/v1/checkout/sessions', { merchant_id: merchantId, order_no: uniq('DEP-'), chain_id: 84532, token: 'USDC', amount: '10.00' }),
      201,
    );
    ({ page } = await newPage(browser));
    await page.goto(`${baseUrl}${new URL(session.url).pathname}`);
    await page.getByRole('button', { name: 'Pay by plain transfer' }).click();
    await page.getByRole('heading', { name: 'Pay by transfer' }).waitFor();
    await shot(page, 'deposit-1-refund-address');

    // A mistyped (checksum-failing) address is refused on the page: nothing is sent, the order has no refund address.
    const refund = getAddress(randomAddress());
    const field = page.getByLabel('Refund address');
    await field.fill(flipCase(refund));
    await page.getByRole('button', { name: 'Show the deposit address' }).click();
    await page.getByText('This address fails its checksum').waitFor();
    expect((await read(session.session_token)).order).toMatchObject({ refund_address: null, deposit_address: null });

    await field.fill(refund);
    await page.getByRole('button', { name: 'Show the deposit address' }).click();
    const shown = page.getByTestId('deposit-address');
    await shown.waitFor();
    const view = await read(session.session_token);
    expect(view.order.refund_address).toBe(refund);
    deposit = getAddress(view.order.deposit_address!);
    expect(await shown.textContent()).toBe(deposit);
    // The QR drawn is the one of the API's deposit address (the plain address; see DepositDetails.tsx).
    const qr = page.getByRole('img', { name: /^QR code of the deposit address/ });
    expect(await qr.locator('path').getAttribute('d')).toBe(qrPath(deposit).d);
    expect(await page.getByTestId('deposit-due').textContent()).toBe('10.00 USDC');
    expect(await page.getByTestId('deposit-received').textContent()).toBe('0.00 USDC');
    await page.getByText('Send exactly 10.00 USDC on Local devnet (chain 84532); other tokens or networks may be lost.').waitFor();
    await shot(page, 'deposit-2-address');

    // A phone: nothing sticks out sideways.
    await page.setViewportSize({ width: 360, height: 780 });
    expect(await sideways(page)).toBe('');
    await shot(page, 'deposit-3-phone');
    await page.setViewportSize({ width: 1280, height: 860 });
  });

  it('follows a partial plain transfer (received 4, still due 6), then the rest, and shows the order paid', async () => {
    expect(deposit).toMatch(/^0x/);
    await send(deposit, parseUnits('4', 6));
    await page.getByTestId('deposit-due').filter({ hasText: '6.00 USDC' }).waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('deposit-received').textContent()).toBe('4.00 USDC');
    const partial = await read(session.session_token);
    expect(partial.order).toMatchObject({ amount_received: '4000000', amount_due: '6000000', state: 'pending_payment' });
    await shot(page, 'deposit-4-partial');

    await send(deposit, parseUnits('6', 6));
    await page.getByRole('heading', { name: 'This order is paid' }).waitFor({ timeout: 90_000 });
    const paid = await expectStatus<DepositOrder>(platform.api('GET', `/v1/orders/${session.order_id}`), 200);
    expect(paid).toMatchObject({ state: 'confirmed', amount_received: '10000000', amount_due: '0', payment_method: 'deposit' });
    await shot(page, 'deposit-5-paid');
  });
});

/** The same address with the case of one letter swapped (still mixed case): still hex, no longer its EIP-55 checksum. */
function flipCase(address: string): string {
  for (let i = 2; i < address.length; i++) {
    const c = address[i]!;
    if (!/[a-fA-F]/.test(c)) continue;
    const out = address.slice(0, i) + (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()) + address.slice(i + 1);
    if (/[a-f]/.test(out.slice(2)) && /[A-F]/.test(out.slice(2))) return out;
  }
  throw new Error(`no letter to flip in ${address}`);
}

/** '' when the page does not scroll sideways; else its width and the elements past the viewport. */
function sideways(page: Page): Promise<string> {
  return page.evaluate(() => {
    const root = document.scrollingElement!;
    if (root.scrollWidth <= root.clientWidth) return '';
    const out = [...document.querySelectorAll('body *')].filter((el) => el.getBoundingClientRect().right > root.clientWidth + 1).slice(0, 5);
    return `${root.scrollWidth} > ${root.clientWidth}: ${out.map((el) => `${el.tagName.toLowerCase()}.${el.className}`).join(', ')}`;
  });
}
