/**
 * What refunds, settlements and order cancellation read from the PaymentRouter: on-chain reads and the
 * chain clock. Nothing here touches the database, and nothing here sends: operator transactions go
 * through the operator sender's outbox (modules/operator-txs).
 */
import type { Address, Hex } from 'viem';
import { paymentRouterAbi } from '../../chain/artifacts/PaymentRouter.js';
import type { ChainsService } from '../chains/service.js';

export function createRouterClient(chains: ChainsService) {
  const client = (chainId: number) => chains.get(chainId).publicClient;

  return {
    hasOperator: () => chains.operator !== null,

    /**
     * Latest block's timestamp: the clock the router checks deadlines and reserve holds against. What it reads
     * also sets the chain's clock (`chains.clock`), which signs deadlines without an RPC call.
     */
    async chainNow(chainId: number): Promise<Date> {
      const block = await client(chainId).getBlock({ blockTag: 'latest' });
      chains.get(chainId).clock.observe(block.timestamp);
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
