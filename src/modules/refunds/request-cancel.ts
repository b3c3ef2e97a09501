import { encodeFunctionData, type Hex } from 'viem';
import { paymentRouterAbi } from '../../chain/artifacts/PaymentRouter.js';
import type { Executor } from '../../db/client.js';
import { enqueueOperatorTx } from '../operator-txs/enqueue.js';
import { refundsRepo, type RefundRow } from './repo.js';

/**
 * Asks the router to cancel a refund's signature (operator `cancelRefund`, works while paused), inside the
 * caller's transaction with the refund row locked. The refund stays open: it fails only when the indexer
 * applies RefundCancelled (or its deadline passes at depth). Returns the refund as it now is.
 */
export async function requestRefundCancel(tx: Executor, refund: RefundRow, reason: string, now: Date): Promise<RefundRow> {
  const chainId = await refundsRepo.chainIdOf(tx, refund.order_id);
  const intent = await enqueueOperatorTx(tx, {
    chainId, purpose: 'refund_cancel', refId: refund.id, to: refund.pay_to as Hex,
    calldata: encodeFunctionData({ abi: paymentRouterAbi, functionName: 'cancelRefund', args: [refund.onchain_id as Hex] }),
  });
  // Not a state change: the refund stays open (REFUND_TRANSITIONS.fail.from) until RefundCancelled is indexed.
  const updated = await refundsRepo.update(tx, refund.id, [refund.state], {
    cancel_requested_at: refund.cancel_requested_at ?? now, cancel_reason: refund.cancel_reason ?? reason, cancel_tx_id: intent.id,
  });
  return updated ?? refund;
}
