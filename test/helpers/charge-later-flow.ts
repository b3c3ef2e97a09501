import type { Address, Hex, LocalAccount } from 'viem';
import { paymentRouterAbi } from '../../src/chain/artifacts/PaymentRouter.js';
import { sweepExpiredAuthorizations } from '../../src/workers.js';
import type { TestChain } from './chain.js';
import { balanceOf, createFlow, payAsBuyer, setupPlatform, type Flow } from './flow.js';
import type { Harness } from './harness.js';

/**
 * Charge later on anvil with the real router, Circle's USDC and the real indexer, at a given confirmation depth.
 * Interval mining is off: every block is mined by the test, chain time is moved by the test.
 */
export async function chargeLaterFlow(depth: number) {
  const f = await createFlow({ confirmations: depth, buyers: 2 });
  await f.chain.anvil.setIntervalMining({ interval: 0 });
  const setup = await setupPlatform(f.h, 500, 1000);
  return { f, setup, ...helpers(f, setup, depth) };
}
export type ChargeLaterFlow = Awaited<ReturnType<typeof chargeLaterFlow>>;

function helpers(f: Flow, setup: Awaited<ReturnType<typeof setupPlatform>>, depth: number) {
  const { h, chain } = f;
  const key = setup.p.secretKey;
  let seq = 0;
  const chainNow = async () => (await chain.publicClient.getBlock({ blockTag: 'latest' })).timestamp;
  const api = (method: string, path: string, body?: unknown) => h.request(method, path, { key, body });
  return {
    key,
    api,
    chainNow,
    /** The API's chain clock reads the node now (the test moved chain time). */
    syncClock: async () => h.services.chains.get(chain.chainId).clock.observe(await chainNow()),
    get: async (id: string) => (await api('GET', `/v1/orders/${id}`)).body,
    async manualOrder(amount: string, extra: Record<string, unknown> = {}) {
      h.services.chains.get(chain.chainId).clock.observe(await chainNow());
      const res = await api('POST', '/v1/orders', { merchant_id: setup.m.external_id, order_no: `later-${depth}-${++seq}`, chain_id: 84532, token: 'USDC', amount, capture_method: 'manual', ...extra });
      if (res.status !== 201) throw new Error(res.text);
      return res.body;
    },
    /** Mines to the depth and lets the indexer apply what is there. */
    async index() {
      await chain.mine(depth);
      await h.services.indexer.runOnce(chain.chainId);
    },
    /** The operator sender until every intent is resolved (mined, then delivered at the depth). */
    drive: (harness: Harness = h) => driveAtDepth(harness, chain, depth),
    sweep: () => sweepExpiredAuthorizations(h.services, chain.chainId),
    pay: (buyer: LocalAccount, order: Parameters<typeof payAsBuyer>[2]) => payAsBuyer(chain, buyer, order),
    /** The payer's own reclaim(orderId) on the router, as in docs/integration.md. */
    reclaim: async (buyer: LocalAccount, orderId: Hex, opts: { gas?: bigint } = {}) =>
      chain.walletClientFor(buyer).writeContract({ address: chain.router, abi: paymentRouterAbi, functionName: 'reclaim', args: [orderId], ...opts }),
    who: (buyer: LocalAccount) => ({ treasury: chain.treasury, platform: setup.platformWallet, merchant: setup.merchantWallet, router: chain.router, payer: buyer.address }),
  };
}

export async function driveAtDepth(h: Harness, chain: TestChain, depth: number, rounds = 12): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    await h.services.operatorTxs.runOnce(chain.chainId);
    const open = (await h.services.operatorTxs.list(chain.chainId)).filter((t) => t.state !== 'done' && t.state !== 'rejected');
    if (open.length === 0) return;
    await chain.mine(i === 0 ? 1 : depth);
  }
  throw new Error('operator transactions still open after driving the sender');
}

/** USDC balances of named addresses, and their changes since. */
export async function balances(chain: TestChain, who: Record<string, Address>) {
  return Object.fromEntries(await Promise.all(Object.entries(who).map(async ([k, a]) => [k, await balanceOf(chain, a)] as const))) as Record<string, bigint>;
}
export function changes(before: Record<string, bigint>, after: Record<string, bigint>) {
  return Object.fromEntries(Object.keys(before).map((k) => [k, after[k]! - before[k]!])) as Record<string, bigint>;
}

export const units = (s: string) => { const [w, f = ''] = s.split('.'); return BigInt(w!) * 1_000_000n + BigInt(f.padEnd(6, '0')); };
