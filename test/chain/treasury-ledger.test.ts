import { type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { paymentRouterAbi } from '../../src/chain/artifacts/PaymentRouter.js';
import { circleUsdcAbi } from '../../src/chain/circle-usdc.js';
import { payOrderFromJson } from '../../src/chain/eip712.js';
import { authoriseServiceKeys, startTestChain, type TestChain } from '../helpers/chain.js';
import { merchant, order } from '../helpers/factories.js';
import { createHarness, type Harness } from '../helpers/harness.js';

/**
 * The service treasury moves (the router's owner calls setServiceTreasury): the ledger's service-fee legs go to
 * the treasury the router paid at each payment's time, read from the indexed ServiceTreasuryUpdated events, not
 * to today's SERVICE_TREASURY. Σ ledger per treasury equals its USDC balance change.
 */
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

let chain: TestChain;
let h: Harness;
let key: string;
let ext: string;
const fresh = (): Address => privateKeyToAccount(generatePrivateKey()).address;
const usdc = (who: Address) => chain.publicClient.readContract({ address: chain.usdc, abi: circleUsdcAbi, functionName: 'balanceOf', args: [who] });
const units = (s: string) => { const [w, f = ''] = s.split('.'); return BigInt(w!) * 1_000_000n + BigInt(f.padEnd(6, '0')); };

beforeAll(async () => {
  chain = await startTestChain({ buyers: 1 });
  const { signerPrivateKey, operatorPrivateKey } = await authoriseServiceKeys(chain);
  const buyer = chain.buyers[0]!;
  await chain.confirm(await chain.walletClientFor(buyer).writeContract({ address: chain.usdc, abi: circleUsdcAbi, functionName: 'approve', args: [chain.router, 2n ** 256n - 1n] }));
  h = await createHarness({
    chains: [{ chainId: chain.chainId, rpcUrl: chain.rpcUrl, router: chain.router, usdc: chain.usdc, confirmations: 1 }],
    // Today's configured treasury is a third address that never received anything.
    config: { signerPrivateKey, operatorPrivateKey, serviceTreasury: fresh() },
  });
  const p = await h.platform({ platform_fee_bps: 500 });
  key = p.secretKey;
  ext = (await merchant(h, key, { merchant_wallet: fresh(), reserve_bps: 1000 })).external_id;
});
afterAll(async () => {
  await h?.close();
  await chain?.stop();
});

async function pay(amount: string) {
  const o = await order(h, key, ext, { amount });
  await chain.confirm(await chain.walletClientFor(chain.buyers[0]!).writeContract({
    address: chain.router, abi: paymentRouterAbi, functionName: 'payOrder', args: [payOrderFromJson(o.eip712), o.signature as Hex],
  }));
  return o as { id: string; computed_split: { service_fee: string } };
}

describe('the ledger follows the service treasury the router paid', () => {
  it('names the treasury of each payment\'s time, and Σ per treasury equals its USDC change', async () => {
    const first = chain.treasury;
    const second = fresh();
    const before = { first: await usdc(first), second: await usdc(second) };
    const a = await pay('10.00');
    const b = await pay('20.00');
    await chain.confirm(await chain.walletClientFor(chain.owner).writeContract({ address: chain.router, abi: paymentRouterAbi, functionName: 'setServiceTreasury', args: [second] }));
    const c = await pay('30.00');
    await chain.mine(1);
    await h.services.indexer.runOnce(chain.chainId);

    const res = await h.request('GET', '/v1/balance_transactions?type=payment_service_fee&limit=100', { key });
    expect(res.status, res.text).toBe(200);
    const rows = res.body.data as { order_id: string; to_address: string; amount: string }[];
    const to = new Map(rows.map((r) => [r.order_id, r.to_address.toLowerCase()]));
    expect(to.get(a.id)).toBe(first.toLowerCase());
    expect(to.get(b.id)).toBe(first.toLowerCase());
    expect(to.get(c.id)).toBe(second.toLowerCase());
    const sum = (addr: Address) => rows.filter((r) => r.to_address.toLowerCase() === addr.toLowerCase()).reduce((t, r) => t + units(r.amount), 0n);
    expect(sum(first)).toBe((await usdc(first)) - before.first);
    expect(sum(second)).toBe((await usdc(second)) - before.second);
    expect(sum(second)).toBe(BigInt(c.computed_split.service_fee)); // base units in the order, a decimal in the ledger
    expect(sum(second)).toBeGreaterThan(0n);
  });
});
