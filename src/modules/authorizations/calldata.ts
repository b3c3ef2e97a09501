import { encodeFunctionData, type Hex } from 'viem';
import { paymentRouterAbi } from '../../chain/artifacts/PaymentRouter.js';
import { payOrderFromJson, type PayOrderJson } from '../../chain/eip712.js';
import type { OperatorTxIntent } from '../operator-txs/types.js';
import type { OrderRow } from '../orders/repo.js';
import { computeSplit } from '../orders/split.js';

/**
 * capture(PayOrder, amount, serviceFee, platformFee, reserveHold): the signed PayOrder the chain authorized (the router
 * checks it against the authorization's digest): the order's own, or `authorized`, the payer-locked one of an x402 payment) and the split of the captured amount at the order's frozen
 * rates (orders/split.ts), the same numbers the indexer then expects in the capture's OrderPaid.
 */
export function captureIntent(order: OrderRow, amount: bigint, authorized: unknown = null): OperatorTxIntent {
  const split = computeSplit(amount, order.service_fee_bps, order.platform_fee_bps, order.reserve_bps);
  const message = payOrderFromJson((authorized ?? order.eip712) as Pick<PayOrderJson, 'message'>);
  return {
    chainId: order.chain_id, purpose: 'capture', refId: order.id, to: order.pay_to as Hex,
    calldata: encodeFunctionData({ abi: paymentRouterAbi, functionName: 'capture', args: [message, amount, split.serviceFee, split.platformFee, split.reserveHold] }),
  };
}

/** voidAuthorization(orderId): the whole authorization back to the payer. */
export const voidIntent = (order: Pick<OrderRow, 'id' | 'chain_id' | 'pay_to' | 'onchain_id'>): OperatorTxIntent => ({
  chainId: order.chain_id, purpose: 'authorization_void', refId: order.id, to: order.pay_to as Hex,
  calldata: encodeFunctionData({ abi: paymentRouterAbi, functionName: 'voidAuthorization', args: [order.onchain_id as Hex] }),
});
