import { encodeAbiParameters, keccak256, toHex, type Address, type Hex, type LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { paymentRouterAbi } from '../../src/chain/artifacts/PaymentRouter.js';
import { circleUsdcAbi } from '../../src/chain/circle-usdc.js';
import { payOrderFromJson, refundOrderFromJson, toBytes32Id } from '../../src/chain/eip712.js';
import { authoriseServiceKeys, startTestChain, type TestChain } from '../helpers/chain.js';
import { merchant, order } from '../helpers/factories.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { driveOperator } from '../helpers/flow.js';

/**
 * The ledger against the chain (issue 18): payments, a partial refund from reserve, a full and a partial refund
 * funded by the platform wallet, and a settlement batch in which the token refuses one merchant's release
 * (ReserveReleaseFailed). Then, for every address that took part, Σ posted balance transactions to it − Σ from it
 * equals its USDC balance change read from the token; and GET /v1/balance equals what the router holds per
 * merchant (its orders' reserves, `reserved(usdc)` and its token balance).
 *
 * TestUSDC (OpenZeppelin ERC20) has no blocklist, so the refusal is provoked the only way its transfer can fail:
 * for the batch's block the router's token balance is lowered (anvil_setStorageAt) so that one transfer lacks
 * funds; the router's try-transfer then reports failure exactly as for a blocklisted merchant. The balance is put
 * back right after, so the token's balances stay the sum of real transfers.
 */
vi.setConfig({ testTimeout: 180_000, hookTimeout: 120_000 });

const HOLD = 7 * 86_400;
let chain: TestChain;
let h: Harness;
let key: string;
const platformWallet = privateKeyToAccount(generatePrivateKey());
const wallets = { m1: fresh(), m2: fresh(), m3: fresh() };
const ext: Record<keyof typeof wallets, string> = { m1: '', m2: '', m3: '' };
let buyers: LocalAccount[];
function fresh(): Address { return privateKeyToAccount(generatePrivateKey()).address; }

const usdc = (who: Address) => chain.publicClient.readContract({ address: chain.usdc, abi: circleUsdcAbi, functionName: 'balanceOf', args: [who] });
const routerOrder = (id: string) => chain.publicClient.readContract({ address: chain.router, abi: paymentRouterAbi, functionName: 'orders', args: [toBytes32Id(id)] });
const get = async (path: string) => {
  const res = await h.request('GET', path, { key });
  expect(res.status, res.text).toBe(200);
  return res.body;
};
async function index() {
  await chain.mine(1);
  await h.services.indexer.runOnce(chain.chainId);
}
const units = (s: string) => { const [w, f = ''] = s.split('.'); return BigInt(w!) * 1_000_000n + BigInt(f.padEnd(6, '0')); };

beforeAll(async () => {
  chain = await startTestChain({ buyers: 2 });
  buyers = chain.buyers;
  const { signerPrivateKey, operatorPrivateKey } = await authoriseServiceKeys(chain);
  await chain.anvil.setBalance({ address: platformWallet.address, value: 10n ** 20n });
  await chain.fundUsdc(platformWallet.address, 1_000n * 10n ** 6n);
  await chain.confirm(await chain.walletClientFor(platformWallet).writeContract({ address: chain.usdc, abi: circleUsdcAbi, functionName: 'approve', args: [chain.router, 2n ** 256n - 1n] }));
  for (const b of buyers) await chain.confirm(await chain.walletClientFor(b).writeContract({ address: chain.usdc, abi: circleUsdcAbi, functionName: 'approve', args: [chain.router, 2n ** 256n - 1n] }));
  h = await createHarness({
    chains: [{ chainId: chain.chainId, rpcUrl: chain.rpcUrl, router: chain.router, usdc: chain.usdc, confirmations: 1 }],
    config: { signerPrivateKey, operatorPrivateKey, serviceTreasury: chain.treasury, reserveHoldDays: 7 },
  });
  const p = await h.platform({ platform_wallet: platformWallet.address, platform_fee_bps: 500 });
  key = p.secretKey;
  for (const [k, reserve] of [['m1', 1000], ['m2', 2000], ['m3', 0]] as const) {
    ext[k] = (await merchant(h, key, { merchant_wallet: wallets[k], reserve_bps: reserve })).external_id;
  }
});
afterAll(async () => {
  await h?.close();
  await chain?.stop();
});

async function pay(buyer: LocalAccount, m: keyof typeof wallets, amount: string) {
  const o = await order(h, key, ext[m], { amount });
  await chain.confirm(await chain.walletClientFor(buyer).writeContract({
    address: chain.router, abi: paymentRouterAbi, functionName: 'payOrder', args: [payOrderFromJson(o.eip712), o.signature as Hex],
  }));
  return o as { id: string };
}

async function refund(orderId: string, amount?: string) {
  const res = await h.request('POST', '/v1/refunds', { key, body: { order_id: orderId, ...(amount ? { amount } : {}) } });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** The platform wallet submits a requires_funding refund itself: refund(message, signature), funding the rest. */
async function fund(r: { eip712: never; signature: string; pay_to: string }) {
  return chain.confirm(await chain.walletClientFor(platformWallet).writeContract({
    address: r.pay_to as Address, abi: paymentRouterAbi, functionName: 'refund', args: [refundOrderFromJson(r.eip712), r.signature as Hex],
  }));
}

/** The storage slot of `who`'s balance in TestUSDC: found by matching balanceOf, not assumed. */
async function balanceSlot(who: Address): Promise<Hex> {
  const want = await usdc(who);
  for (let i = 0n; i < 12n; i++) {
    const slot = keccak256(encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [who, i]));
    if (BigInt((await chain.publicClient.getStorageAt({ address: chain.usdc, slot })) ?? '0x0') === want) return slot;
  }
  throw new Error('balance slot not found');
}
const setRouterBalance = async (slot: Hex, value: bigint) => chain.anvil.setStorageAt({ address: chain.usdc, index: slot, value: toHex(value, { size: 32 }) });

describe('accounting on anvil', () => {
  const who = () => ({ treasury: chain.treasury, platform: platformWallet.address, router: chain.router, ...wallets, buyer0: buyers[0]!.address, buyer1: buyers[1]!.address });
  let start: Record<string, bigint>;
  const o = {} as Record<'o1' | 'o2' | 'o3' | 'o4', { id: string }>;

  it('payments, refunds (one from reserve, two funded by the platform) and a batch with one refused release', async () => {
    start = Object.fromEntries(await Promise.all(Object.entries(who()).map(async ([k, a]) => [k, await usdc(a)] as const)));
    o.o1 = await pay(buyers[0]!, 'm1', '100.00'); // reserve 9.40
    o.o2 = await pay(buyers[1]!, 'm1', '40.00'); //  reserve 3.76
    o.o3 = await pay(buyers[0]!, 'm2', '60.00'); //  reserve 11.28 (20 %)
    o.o4 = await pay(buyers[1]!, 'm3', '25.00'); //  no reserve
    await index();

    const small = await refund(o.o2.id, '1.00');
    expect(small.state).toBe('pending');
    await h.services.refunds.runOnce();
    await driveOperator(h, chain);
    const full = await refund(o.o1.id);
    expect(full).toMatchObject({ state: 'requires_funding', reserve_portion: '9400000', funding_required: '90600000' });
    await fund(full);
    const noReserve = await refund(o.o4.id, '5.00');
    expect(noReserve).toMatchObject({ state: 'requires_funding', funding_required: '5000000' });
    await fund(noReserve);
    await index();
    for (const r of [small, full, noReserve]) expect((await get(`/v1/refunds/${r.id}`)).state).toBe('completed');

    // Past the hold on the chain clock: o2 (2.76 left) and o3 (11.28) are due. The router holds exactly those.
    await chain.increaseTime(HOLD + 60);
    await index();
    expect(await usdc(chain.router)).toBe(2_760_000n + 11_280_000n);
    const slot = await balanceSlot(chain.router);
    await setRouterBalance(slot, 2_760_000n); // whichever order the batch takes, o2 can be paid and o3 cannot
    await h.services.settlements.runOnce();
    await driveOperator(h, chain);
    const left = await usdc(chain.router);
    await setRouterBalance(slot, left + 11_280_000n);
    await index();
    const s = await h.db.selectFrom('settlements').selectAll().executeTakeFirstOrThrow();
    expect(s).toMatchObject({ state: 'confirmed', order_count: 1 });
    expect(BigInt(s.total)).toBe(2_760_000n);
    expect((await routerOrder(o.o3.id)).reserve).toBe(11_280_000n);
    expect(await usdc(chain.router)).toBe(11_280_000n);
  });

  it('Σ balance transactions per address equals each address\'s token balance change', async () => {
    const rows: any[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await get(`/v1/balance_transactions?limit=7${cursor ? `&cursor=${cursor}` : ''}`);
      rows.push(...page.data);
      cursor = page.next_cursor;
    } while (cursor);
    // o1 4 legs, o2 4, o3 4, o4 3 (no reserve); refunds: o2 1 (reserve), o1 2, o4 1 (submitter); release o2, refused o3.
    expect(rows).toHaveLength(21);
    expect(rows.filter((r) => r.type === 'reserve_release_failed')).toMatchObject([{ order_id: o.o3.id, status: 'failed', amount: '11.28', to_address: wallets.m2 }]);
    for (const r of rows) expect(r.log_index, `${r.type} ${r.event_key}`).toEqual(expect.any(Number));

    const net = new Map<string, bigint>();
    const add = (a: string, v: bigint) => net.set(a.toLowerCase(), (net.get(a.toLowerCase()) ?? 0n) + v);
    // The platform wallet funded both submitter parts: the ledger names it (the token's Transfer log in the refund's tx).
    expect(rows.filter((r) => r.type === 'refund_from_submitter').map((r) => r.from_address)).toEqual([platformWallet.address, platformWallet.address].map((a) => expect.stringMatching(new RegExp(`^${a}$`, 'i'))));
    for (const r of rows.filter((x) => x.status === 'posted')) {
      add(r.from_address!, -units(r.amount));
      add(r.to_address, units(r.amount));
    }
    for (const [name, address] of Object.entries(who())) {
      const change = (await usdc(address)) - start[name]!;
      expect(net.get(address.toLowerCase()) ?? 0n, name).toBe(change);
    }
    expect([...net.keys()].sort()).toEqual(Object.values(who()).map((a) => a.toLowerCase()).sort());
  });

  it('GET /v1/balance equals what the router holds, per merchant and in total', async () => {
    const b = await get('/v1/balance');
    const reserved = await chain.publicClient.readContract({ address: chain.router, abi: paymentRouterAbi, functionName: 'reserved', args: [chain.usdc] });
    expect(units(b.reserve_held)).toBe(reserved);
    expect(units(b.reserve_held)).toBe(await usdc(chain.router));
    const held: Record<string, bigint> = { m1: 0n, m2: 0n, m3: 0n };
    held.m1 = (await routerOrder(o.o1.id)).reserve + (await routerOrder(o.o2.id)).reserve;
    held.m2 = (await routerOrder(o.o3.id)).reserve;
    held.m3 = (await routerOrder(o.o4.id)).reserve;
    for (const k of ['m1', 'm2', 'm3'] as const) {
      const m = b.merchants.find((x: any) => x.merchant_id === ext[k]);
      expect(units(m.reserve_held), k).toBe(held[k]);
    }
    expect(b).toMatchObject({
      gross_volume: '225.00', platform_fees: '11.25', reserve_held: '11.28', reserve_releasable: '11.28', next_release_at: null,
      released: '2.76', refunded_from_reserve: '10.40', refunded_from_submitter: '95.60',
    });
    // released (the router's arithmetic) agrees with the ledger's releases
    const releases = (await get('/v1/balance_transactions?type=reserve_release&limit=100')).data;
    expect(releases.reduce((s: bigint, r: any) => s + units(r.amount), 0n)).toBe(units(b.released));
  });
});
