/**
 * What refunds, settlements and order cancellation read from the PaymentRouter: on-chain reads and the
 * chain clock. Nothing here touches the database, and nothing here sends: operator transactions go
 * through the operator sender's outbox (modules/operator-txs).
 */
import type { Address, Hex } from 'viem';
import { paymentRouterAbi } from '../../chain/artifacts/PaymentRouter.js';
import type { Config } from '../../config.js';
import type { ChainsService } from '../chains/service.js';

export function createRouterClient(_config: Config, chains: ChainsService) {
  /** Chain clock minus wall clock, learned whenever a worker reads the latest block (anvil time can be moved). */
  const clockOffsetMs = new Map<number, number>();
  const client = (chainId: number) => chains.get(chainId).publicClient;

  return {
    hasOperator: () => chains.operator !== null,

    /** Latest block's timestamp: the clock the router checks deadlines and reserve holds against. */
    async chainNow(chainId: number): Promise<Date> {
      const block = await client(chainId).getBlock({ blockTag: 'latest' });
      const now = new Date(Number(block.timestamp) * 1000);
      clockOffsetMs.set(chainId, now.getTime() - Date.now());
      return now;
    },

    /** The chain clock without an RPC call (request path): wall clock plus the last offset a worker saw. */
    estimatedChainNow: (chainId: number) => new Date(Date.now() + (clockOffsetMs.get(chainId) ?? 0)),

    async blockTime(chainId: number, blockNumber: bigint): Promise<Date> {
      const block = await client(chainId).getBlock({ blockNumber });
      return new Date(Number(block.timestamp) * 1000);
    },

    async orderReserve(chainId: number, router: Address, orderId: Hex): Promise<bigint> {
      const o = await client(chainId).readContract({ address: router, abi: paymentRouterAbi, functionName: 'orders', args: [orderId] });
      return o.reserve;
    },

    /** Whether the router shows the order paid, at the latest block. */
    async orderPaid(chainId: number, router: Address, orderId: Hex): Promise<boolean> {
      const o = await client(chainId).readContract({ address: router, abi: paymentRouterAbi, functionName: 'orders', args: [orderId], blockTag: 'latest' });
      return o.paid;
    },

    refundUsed: (chainId: number, router: Address, refundId: Hex) =>
      client(chainId).readContract({ address: router, abi: paymentRouterAbi, functionName: 'refundUsed', args: [refundId] }),
  };
}

export type RouterClient = ReturnType<typeof createRouterClient>;
