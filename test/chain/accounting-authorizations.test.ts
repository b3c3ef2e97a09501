import type { Address, Hex, LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { paymentRouterAbi } from '../../src/chain/artifacts/PaymentRouter.js';
import { circleUsdcAbi } from '../../src/chain/circle-usdc.js';
import { payOrderFromJson, refundOrderFromJson } from '../../src/chain/eip712.js';
import { sweepExpiredAuthorizations } from '../../src/workers.js';
import { driveAtDepth, units } from '../helpers/charge-later-flow.js';
import { merchant } from '../helpers/factories.js';
import { createFlow, type Flow } from '../helpers/flow.js';

/**
 * The ledger against the chain with charge later (issue 27): an automatic payment, authorizations captured in part
 * and in full, voided, reclaimed by the payer and left held, and refunds of captured orders (one from the reserve,
 * one funded by the platform wallet). Then, for every address that took part, Σ posted balance transactions to it −
 * Σ from it equals its USDC balance change read from the token, and GET /v1/balance's `authorized` is what the
 * router holds for authorizations (`held`), its reserve_held what it holds as reserves (`reserved`).
 */
vi.setConfig({ testTimeout: 180_000, hookTimeout: 120_000 });

let f: Flow;
let key: string;
let ext: string;
let buyers: LocalAccount[];
const platformWallet = privateKeyToAccount(generatePrivateKey());
const merchantWallet = privateKeyToAccount(generatePrivateKey()).address;

const usdc = (who: Address) => f.chain.publicClient.readContract({ address: f.chain.usdc, abi: circleUsdcAbi, functionName: 'balanceOf', args: [who] });
const router = (functionName: 'held' | 'reserved') => f.chain.publicClient.readContract({ address: f.chain.router, abi: paymentRouterAbi, functionName, args: [f.chain.usdc] }) as Promise<bigint>;
const api = async (method: string, path: string, body?: unknown, status = 200) => {
  const res = await f.h.request(method, path, { key, body });
  expect(res.status, res.text).toBe(status);
  return res.body;
};
async function index() {
  await f.chain.mine(1);
  await f.h.services.indexer.runOnce(f.chain.chainId);
}
const send = async (from: LocalAccount, functionName: 'payOrder' | 'reclaim' | 'refund', args: readonly unknown[]) =>
  f.chain.confirm(await f.chain.walletClientFor(from).writeContract({ address: f.chain.router, abi: paymentRouterAbi, functionName, args } as never));

async function paid(buyer: LocalAccount, amount: string, extra: Record<string, unknown> = {}) {
  f.h.services.chains.get(84532).clock.observe((await f.chain.publicClient.getBlock()).timestamp);
  const o = await api('POST', '/v1/orders', { merchant_id: ext, order_no: `acc-${Math.random()}`, chain_id: 84532, token: 'USDC', amount, ...extra }, 201);
  await send(buyer, 'payOrder', [payOrderFromJson(o.eip712), o.signature as Hex]);
  return o as { id: string; eip712: { message: Record<string, string> } };
}

beforeAll(async () => {
  f = await createFlow({ buyers: 2 });
  buyers = f.chain.buyers;
  await f.chain.anvil.setBalance({ address: platformWallet.address, value: 10n ** 20n });
  await f.chain.fundUsdc(platformWallet.address, 1_000n * 10n ** 6n);
  for (const a of [platformWallet, ...buyers]) {
    await f.chain.confirm(await f.chain.walletClientFor(a).writeContract({ address: f.chain.usdc, abi: circleUsdcAbi, functionName: 'approve', args: [f.chain.router, 2n ** 256n - 1n] }));
  }
  const p = await f.h.platform({ platform_wallet: platformWallet.address, platform_fee_bps: 500 });
  key = p.secretKey;
  ext = (await merchant(f.h, key, { merchant_wallet: merchantWallet, reserve_bps: 1000 })).external_id;
});
afterAll(async () => f?.close());

describe('accounting with authorizations on anvil', () => {
  const who = () => ({ treasury: f.chain.treasury, platform: platformWallet.address, merchant: merchantWallet, router: f.chain.router, buyer0: buyers[0]!.address, buyer1: buyers[1]!.address });
  let start: Record<string, bigint>;

  it('a payment, captures (part, all), a void, a reclaim, one left held, and refunds of captures', async () => {
    start = Object.fromEntries(await Promise.all(Object.entries(who()).map(async ([k, a]) => [k, await usdc(a)] as const)));
    await paid(buyers[0]!, '10.00');
    const m1 = await paid(buyers[1]!, '50.00', { capture_method: 'manual' });
    const m2 = await paid(buyers[0]!, '40.00', { capture_method: 'manual' });
    const m3 = await paid(buyers[1]!, '20.00', { capture_method: 'manual' });
    const m4 = await paid(buyers[0]!, '15.00', { capture_method: 'manual', capture_within_seconds: 3600 });
    const m5 = await paid(buyers[1]!, '5.00', { capture_method: 'manual', capture_within_seconds: 86_400 });
    await index();
    await api('POST', `/v1/orders/${m1.id}/capture`, { amount: '30.00' }, 202);
    await api('POST', `/v1/orders/${m2.id}/capture`, {}, 202);
    await api('POST', `/v1/orders/${m3.id}/void`, undefined, 202);
    await driveAtDepth(f.h, f.chain, 1);
    await index();
    // m4's window ends; its payer reclaims before the service's sweeper gets to it.
    await f.chain.anvil.setNextBlockTimestamp({ timestamp: BigInt(m4.eip712.message.captureDeadline!) });
    await send(buyers[0]!, 'reclaim', [m4.eip712.message.orderId]);
    await index();
    await sweepExpiredAuthorizations(f.h.services, 84532);
    expect((await api('GET', `/v1/orders/${m4.id}`)).void_reason).toBe('reclaimed_by_payer');

    const fromReserve = await api('POST', '/v1/refunds', { order_id: m1.id, amount: '1.00' }, 201);
    expect(fromReserve.state).toBe('pending');
    await f.h.services.refunds.runOnce();
    await driveAtDepth(f.h, f.chain, 1);
    const funded = await api('POST', '/v1/refunds', { order_id: m2.id, amount: '10.00' }, 201);
    expect(funded).toMatchObject({ state: 'requires_funding', reserve_portion: '3760000', funding_required: '6240000' });
    await send(platformWallet, 'refund', [refundOrderFromJson(funded.eip712), funded.signature as Hex]);
    await index();
    expect((await api('GET', `/v1/orders/${m5.id}`)).state).toBe('authorized');
    expect((await api('GET', `/v1/orders/${m3.id}`))).toMatchObject({ state: 'voided', void_reason: 'requested' });
  });

  it("Σ balance transactions per address equals each address's token balance change, every row keyed to its router log", async () => {
    const rows: any[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await api('GET', `/v1/balance_transactions?limit=9${cursor ? `&cursor=${cursor}` : ''}`);
      rows.push(...page.data);
      cursor = page.next_cursor;
    } while (cursor);
    const count = (type: string) => rows.filter((r) => r.type === type).length;
    expect({
      hold: count('authorization_hold'), ret: count('authorization_return'), void: count('authorization_void'), reclaim: count('authorization_reclaim'),
      payments: count('payment_service_fee'), refunds: count('refund_from_reserve') + count('refund_from_submitter'),
    }).toEqual({ hold: 5, ret: 1, void: 1, reclaim: 1, payments: 3, refunds: 3 });
    expect(rows).toHaveLength(23);
    expect(rows.find((r) => r.type === 'authorization_return')).toMatchObject({ amount: '20.00', from_address: f.chain.router, to_address: buyers[1]!.address, event_key: expect.stringMatching(/^OrderCaptured:0x/) });
    for (const r of rows) expect(r.log_index, `${r.type} ${r.event_key}`).toEqual(expect.any(Number));
    const net = new Map<string, bigint>();
    const add = (a: string, v: bigint) => net.set(a.toLowerCase(), (net.get(a.toLowerCase()) ?? 0n) + v);
    for (const r of rows.filter((x) => x.status === 'posted')) {
      add(r.from_address!, -units(r.amount));
      add(r.to_address, units(r.amount));
    }
    for (const [name, address] of Object.entries(who())) expect(net.get(address.toLowerCase()) ?? 0n, name).toBe((await usdc(address)) - start[name]!);
    expect([...net.keys()].sort()).toEqual(Object.values(who()).map((a) => a.toLowerCase()).sort());
  });

  it('GET /v1/balance: authorized is what the router holds for authorizations, reserve_held its reserves', async () => {
    const b = await api('GET', '/v1/balance');
    expect(units(b.authorized)).toBe(await router('held'));
    expect(b.authorized).toBe('5.00');
    expect(units(b.reserve_held)).toBe(await router('reserved'));
    expect(units(b.reserve_held) + units(b.authorized)).toBe(await usdc(f.chain.router));
    expect(b.gross_volume).toBe('80.00');
    expect(b.merchants).toMatchObject([{ merchant_id: ext, authorized: '5.00', gross_volume: '80.00' }]);
  });
});
