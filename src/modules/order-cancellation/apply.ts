import type { Hex } from 'viem';
import type { Tx } from '../../db/client.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import { recordAlert } from '../alerts/service.js';
import type { OperatorTxOutcome } from '../operator-txs/types.js';
import type { OrdersService } from '../orders/index.js';
import { orderCancellationRepo } from './repo.js';

export type PayOrderCancelledLog = { chainId: number; orderOnchainId: Hex; txHash: Hex; blockTime: Date };

/**
 * Indexer hook: the router cancelled the PayOrder, so it can never be paid. Only now does a pending order
 * fail (with order.failed, once). An order paid first was skipped by cancelOrders and emits no such log.
 */
export function applyPayOrderCancelledWith(orders: OrdersService, logger: Logger) {
  return async (tx: Tx, e: PayOrderCancelledLog): Promise<void> => {
    const order = await orderCancellationRepo.lockByOnchainId(tx, e.chainId, e.orderOnchainId);
    if (!order) {
      await recordAlert(tx, e.chainId, 'unknown_order_cancelled', { order_onchain_id: e.orderOnchainId, tx_hash: e.txHash });
      return;
    }
    if (order.state !== 'pending_payment') {
      if (order.state !== 'failed' && order.state !== 'expired') await recordAlert(tx, e.chainId, 'order_cancelled_unexpected_state', { order_id: order.id, state: order.state, tx_hash: e.txHash });
      return;
    }
    await orders.transition(tx, order, 'fail', { failed_at: e.blockTime, failure_reason: order.cancel_reason ?? 'cancelled on chain' }, 'order.failed');
    logger.info({ order_id: order.id, tx_hash: e.txHash }, 'order cancelled on chain; failed');
  };
}

/** Outcome of cancelOrders: success → the indexer fails it. A refusal clears the request so it can be asked again. */
export function orderCancelOutcomeHandler(logger: Logger, clock: Clock) {
  return async (tx: Tx, o: OperatorTxOutcome): Promise<void> => {
    if (o.outcome === 'success') return;
    await orderCancellationRepo.clearRequest(tx, o.refId, clock.now());
    await recordAlert(tx, o.chainId, 'order_cancel_failed', { order_id: o.refId, outcome: o.outcome, error: o.error, tx_hash: o.txHash });
    logger.error({ order_id: o.refId, outcome: o.outcome, error: o.error }, 'ALERT: cancelOrders was not executed; the order stays payable');
  };
}
