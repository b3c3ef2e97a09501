import type { Address, Hex } from 'viem';
import type { Tx } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import { canMove } from '../../lib/transitions.js';
import { recordAlert } from '../alerts/service.js';
import type { OrderRow } from '../orders/repo.js';
import { paidAmountOf } from '../orders/split.js';
import { ORDER_TRANSITIONS } from '../orders/state.js';
import type { OrderMover } from './deps.js';
import { emitRefundEvent } from './fail.js';
import { refundsRepo, type RefundRow } from './repo.js';
import { REFUND_TRANSITIONS } from './state.js';

export type RefundedLog = {
  chainId: number;
  orderOnchainId: Hex;
  refundOnchainId: Hex;
  to: Address;
  amount: bigint;
  fromReserve: bigint;
  fromSubmitter: bigint;
  /** The sender of the USDC transfer that paid `fromSubmitter` (null when the reserve covered it all). */
  submitter?: Address | null;
  txHash: Hex;
  blockTime: Date;
};

export type ApplyRefundedDeps = { orders: OrderMover; logger: Logger; clock: Clock };

const min = (a: bigint, b: bigint) => (a < b ? a : b);
const max = (a: bigint, b: bigint) => (a > b ? a : b);

/**
 * Chain event Refunded (indexer hook, inside the indexer's transaction, after it de-duplicated the log): the
 * router paid the refund. The chain is the truth: a refund this service had marked failed still completes
 * (with an alert; REFUND_TRANSITIONS allows failed → completed), and the amounts recorded are the ones the
 * router moved. Never throws for bad data: an alert row is written instead, so one odd log cannot stall the indexer.
 */
export async function applyRefunded(deps: ApplyRefundedDeps, tx: Tx, e: RefundedLog): Promise<void> {
  const refund = await refundsRepo.lockByOnchainId(tx, e.refundOnchainId);
  if (!refund) {
    await recordAlert(tx, e.chainId, 'unknown_refund', { refund_onchain_id: e.refundOnchainId, order_onchain_id: e.orderOnchainId, amount: e.amount, tx_hash: e.txHash });
    deps.logger.error({ chain_id: e.chainId, refund_onchain_id: e.refundOnchainId, tx_hash: e.txHash }, 'ALERT: Refunded log for an unknown refund');
    return;
  }
  if (!canMove(REFUND_TRANSITIONS, refund.state, 'complete')) {
    deps.logger.warn({ refund_id: refund.id, tx_hash: e.txHash }, 'Refunded log for a refund already completed; ignored');
    return;
  }
  const order = (await refundsRepo.lockOrderById(tx, refund.order_id))!;
  if (order.onchain_id !== e.orderOnchainId || refund.amount !== e.amount || refund.to_address.toLowerCase() !== e.to.toLowerCase()) {
    await recordAlert(tx, e.chainId, 'refund_mismatch', { refund_id: refund.id, order_id: order.id, amount: e.amount, expected_amount: refund.amount, to: e.to, tx_hash: e.txHash });
  }
  if (refund.state === 'failed') {
    await recordAlert(tx, e.chainId, 'refund_completed_after_failure', { refund_id: refund.id, failure_reason: refund.failure_reason, tx_hash: e.txHash });
  }
  const completed = (await refundsRepo.update(tx, refund.id, [refund.state], {
    state: REFUND_TRANSITIONS.complete.to, tx_hash: e.txHash, completed_at: e.blockTime, reserve_portion: e.fromReserve, funding_required: e.fromSubmitter,
    funded_by: e.fromSubmitter > 0n ? (e.submitter ?? null) : null,
    submit_lease_until: null, failure_reason: null,
  }))!;
  const updated = await applyToOrder(deps, tx, e, order, refund);
  await emitRefundEvent(tx, 'refund.completed', completed, updated);
}

/** The order's refunded amount and reserve follow what the router moved; its state moves by the order table. */
async function applyToOrder(deps: ApplyRefundedDeps, tx: Tx, e: RefundedLog, order: OrderRow, refund: RefundRow): Promise<OrderRow> {
  let refunded = order.refunded_amount + e.amount;
  let reserve = order.reserve_remaining - e.fromReserve;
  // What was paid out is the ceiling: the whole amount, or what a manual order's capture took.
  const paid = paidAmountOf(order);
  if (refunded > paid || reserve < 0n) {
    await recordAlert(tx, e.chainId, 'refund_order_out_of_sync', { order_id: order.id, refund_id: refund.id, refunded, reserve, tx_hash: e.txHash });
    refunded = min(refunded, paid);
    reserve = max(reserve, 0n);
  }
  const trigger = refunded >= paid ? 'refund_full' : 'refund_partial';
  const set = { refunded_amount: refunded, reserve_remaining: reserve };
  if (canMove(ORDER_TRANSITIONS, order.state, trigger)) return deps.orders.transition(tx, order, trigger, set);
  await recordAlert(tx, e.chainId, 'refund_order_state', { order_id: order.id, state: order.state, refund_id: refund.id, tx_hash: e.txHash });
  return refundsRepo.setOrderAmounts(tx, order.id, set, deps.clock.now());
}
