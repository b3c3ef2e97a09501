import { erc20Abi, type Address } from 'viem';
import { sweepExpiredOrders } from '../../src/workers.js';
import type { Flow } from './flow.js';

/**
 * What the deposit flow tests do to a Flow at a confirmation depth: plain transfers from buyer 0, the indexer to depth,
 * the relayer's sweeps (with or without the expiry sweeper on the chain clock), and the events of an order.
 * `flow` is read on each call (the Flow is made in beforeAll).
 */
export function depositDriver(flow: () => Flow, depth: number) {
  const chainId = 84532;
  const rounds = async (expiring: boolean) => {
    const f = flow();
    for (let i = 0; i < 4; i++) {
      await f.chain.mine(depth + 1);
      await f.h.services.indexer.runOnce(chainId);
      if (expiring) await sweepExpiredOrders(f.h.services, chainId);
      await f.h.services.operatorTxs.runOnce(chainId);
    }
    await f.chain.mine(depth + 1);
    await f.h.services.indexer.runOnce(chainId);
  };
  return {
    /** The latest block's timestamp (unix seconds). */
    chainNow: async () => Number((await flow().chain.publicClient.getBlock({ blockTag: 'latest' })).timestamp),
    /** A plain USDC transfer from buyer 0, as an exchange would send it. */
    send: async (to: Address, value: bigint) => {
      const f = flow();
      const buyer = f.chain.walletClientFor(f.chain.buyers[0]!);
      await f.chain.confirm(await buyer.writeContract({ address: f.chain.usdc, abi: erc20Abi, functionName: 'transfer', args: [to, value] }));
    },
    /** Index to depth, let the relayer send what was enqueued, and index its result. */
    settle: () => rounds(false),
    /** settle(), with the expiry sweeper after each indexer run (chain clock, like test/flows/expiry-race.test.ts). */
    settleExpiring: () => rounds(true),
    /** The payment.returned objects of an order. */
    returnsOf: async (id: string) => (await flow().h.db.selectFrom('events').select('data').where('type', '=', 'payment.returned').execute())
      .map((e) => (e.data as { object: Record<string, unknown> }).object).filter((x) => x.order_id === id),
    /** The types of the events that mention an order. */
    eventsOf: async (id: string) => (await flow().h.db.selectFrom('events').select(['type', 'data']).execute())
      .filter((e) => JSON.stringify(e.data).includes(id)).map((e) => e.type),
  };
}
