/**
 * Charge later through x402 (issue 35.7): a manual-capture checkout session paid by the STOCK x402 client through its
 * x402_url is authorized on chain with the payer-locked PayOrder the service signed for that payer; capture must
 * present that PayOrder (the router checks its digest), void returns everything, and the relayer's own pull is never
 * an unmatched transfer. On anvil with Circle's FiatTokenV2_2, at 2 and 20 confirmations.
 */
import { type Address, type LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm/exact/client';
import { ADMIN_TOKEN } from '../helpers/harness.js';
import { balanceOf, createFlow, setupPlatform, type Flow } from '../helpers/flow.js';

describe.each([2, 20])('charge later through x402 at %i confirmations', (depth) => {
  let f: Flow;
  const relayerKey = generatePrivateKey();
  beforeAll(async () => {
    f = await createFlow({ confirmations: depth, config: { relayerPrivateKey: relayerKey, gaslessEnabled: true, gaslessDailyCap: 100, x402SettleWaitMs: 20_000 } });
    await f.chain.anvil.setBalance({ address: privateKeyToAccount(relayerKey).address, value: 10n ** 20n });
  }, 120_000);
  afterAll(async () => f?.close());

  const appFetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => f.h.app.fetch(new Request(input, init));
  function stockClient(buyer: LocalAccount) {
    const client = new x402Client();
    client.register('eip155:*', new ExactEvmScheme(buyer));
    client.setSpendControls({ allowedAssets: [{ network: 'eip155:84532', asset: f.chain.usdc, maxAmountPerPayment: '100000000' }] });
    return client;
  }
  async function whileRelaying<T>(work: Promise<T>): Promise<T> {
    let done = false;
    const driven = (async () => {
      while (!done) {
        await f.h.services.operatorTxs.runOnce(84532);
        await f.chain.mine(1);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    try {
      return await work;
    } finally {
      done = true;
      await driven;
    }
  }
  /** The sender and the indexer past the depth, a few rounds (an operator call, then its log at depth). */
  async function settle() {
    for (let i = 0; i < 3; i++) {
      await f.h.services.operatorTxs.runOnce(84532);
      await f.chain.mine(depth + 1);
      await f.h.services.indexer.runOnce(84532);
    }
  }
  let seq = 0;
  async function authorizedViaX402(amount: string) {
    const { p, m, platformWallet, merchantWallet } = await setupPlatform(f.h, 500, 1000);
    const s = await f.h.request('POST', '/v1/checkout/sessions', { key: p.secretKey, body: { merchant_id: m.external_id, order_no: `x402-later-${depth}-${++seq}`, chain_id: 84532, token: 'USDC', amount, capture_method: 'manual' } });
    expect(s.status, s.text).toBe(201);
    const buyer = privateKeyToAccount(generatePrivateKey());
    await f.chain.fundUsdc(buyer.address, 1_000n * 10n ** 6n);
    const res = await whileRelaying(wrapFetchWithPayment(appFetch, stockClient(buyer))(s.body.x402_url));
    expect(res.status, await res.clone().text()).toBe(200);
    await settle();
    const order = (await f.h.request('GET', `/v1/orders/${s.body.order_id}`, { key: p.secretKey })).body;
    expect(order).toMatchObject({ state: 'authorized', capture_method: 'manual', payment_method: 'authorization', paid_by: buyer.address });
    return { p, buyer, order, platformWallet, merchantWallet };
  }
  async function listedFrom(from: Address) {
    const page = await f.h.request('GET', '/_/unmatched-transfers?limit=100', { key: ADMIN_TOKEN });
    expect(page.status, page.text).toBe(200);
    return (page.body.data as { from: string }[]).filter((t) => t.from.toLowerCase() === from.toLowerCase());
  }

  it('captures part of it with the PayOrder the chain authorized: the captured split paid out, the rest back to the payer', async () => {
    const { p, buyer, order, platformWallet, merchantWallet } = await authorizedViaX402('10.00');
    const who = [f.chain.treasury, platformWallet, merchantWallet, buyer.address] as Address[];
    const before = await Promise.all(who.map((a) => balanceOf(f.chain, a)));
    const cap = await f.h.request('POST', `/v1/orders/${order.id}/capture`, { key: p.secretKey, body: { amount: '6.00' } });
    expect(cap.status, cap.text).toBe(202);
    await settle();
    const done = (await f.h.request('GET', `/v1/orders/${order.id}`, { key: p.secretKey })).body;
    expect(done).toMatchObject({ state: 'confirmed', amount_captured: '6.00' });
    const split = done.computed_split;
    const after = await Promise.all(who.map((a) => balanceOf(f.chain, a)));
    expect(after.map((a, i) => a - before[i]!)).toEqual([BigInt(split.service_fee), BigInt(split.platform_fee), BigInt(split.merchant_available), 4_000_000n]);
    // The relayer's pull into escrow is the router's own: never listed as unmatched, never a front-run.
    expect(await listedFrom(buyer.address)).toEqual([]);
    expect((await f.h.db.selectFrom('chain_alerts').select('kind').where('kind', '=', 'capture_failed').execute())).toEqual([]);
  });

  it('voids it: the whole authorization back to the payer, nothing listed unmatched', async () => {
    const { p, buyer, order } = await authorizedViaX402('3.50');
    const before = await balanceOf(f.chain, buyer.address);
    const v = await f.h.request('POST', `/v1/orders/${order.id}/void`, { key: p.secretKey, body: {} });
    expect(v.status, v.text).toBe(202);
    await settle();
    expect((await f.h.request('GET', `/v1/orders/${order.id}`, { key: p.secretKey })).body.state).toBe('voided');
    expect(await balanceOf(f.chain, buyer.address)).toBe(before + 3_500_000n);
    expect(await listedFrom(buyer.address)).toEqual([]);
  });
});
