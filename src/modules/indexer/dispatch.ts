import type { Hex } from 'viem';
import type { Tx } from '../../db/client.js';
import type { ApplyDeps } from './apply-deps.js';
import type { RouterLog } from './events.js';
import { indexerRepo } from './repo.js';

/** Hands a new router log to the module that owns it; an event nobody handles is an `unhandled_event` alert. */
export async function dispatch(tx: Tx, deps: ApplyDeps, chainId: number, log: RouterLog, blockTime: Date, funder: Hex | null = null): Promise<void> {
  const base = { chainId, txHash: log.transactionHash };
  const hooks = deps.hooks();
  switch (log.eventName) {
    case 'OrderPaid':
      await deps.orders.applyPaid(tx, { ...base, ...log.args, blockNumber: log.blockNumber, blockTime });
      return;
    case 'Refunded':
      if (!hooks.applyRefunded) break;
      return hooks.applyRefunded(tx, { ...base, orderOnchainId: log.args.orderId, refundOnchainId: log.args.refundId, to: log.args.to, amount: log.args.amount, fromReserve: log.args.fromReserve, fromSubmitter: log.args.fromSubmitter, submitter: funder, blockTime });
    case 'ReserveReleased':
      if (!hooks.applyReserveReleased) break;
      return hooks.applyReserveReleased(tx, { ...base, orderOnchainId: log.args.orderId, batchOnchainId: log.args.batchId, merchant: log.args.merchant, amount: log.args.amount });
    case 'ReserveReleaseFailed':
      if (!hooks.applyReserveReleaseFailed) break;
      return hooks.applyReserveReleaseFailed(tx, { ...base, orderOnchainId: log.args.orderId, batchOnchainId: log.args.batchId, merchant: log.args.merchant, amount: log.args.amount });
    case 'BatchSettled':
      if (!hooks.applyBatchSettled) break;
      return hooks.applyBatchSettled(tx, { ...base, batchOnchainId: log.args.batchId, orderCount: log.args.orderCount, totalReleased: log.args.totalReleased, blockTime });
    case 'PayOrderCancelled':
      if (!hooks.applyPayOrderCancelled) break;
      return hooks.applyPayOrderCancelled(tx, { ...base, orderOnchainId: log.args.orderId, blockTime });
    case 'RefundCancelled':
      if (!hooks.applyRefundCancelled) break;
      return hooks.applyRefundCancelled(tx, { ...base, refundOnchainId: log.args.refundId, blockTime });
    case 'ExcessRecovered':
      return applyExcessRecovered(tx, deps, chainId, log, blockTime);
  }
  await indexerRepo.alert(tx, chainId, 'unhandled_event', { event: log.eventName, tx_hash: log.transactionHash, log_index: log.logIndex });
}

/** The owner moved balance − reserved out: recorded as an alert, and the unmatched transfers it covered are marked recovered. */
async function applyExcessRecovered(tx: Tx, deps: ApplyDeps, chainId: number, log: Extract<RouterLog, { eventName: 'ExcessRecovered' }>, blockTime: Date) {
  const { token, to, amount } = log.args;
  await indexerRepo.alert(tx, chainId, 'excess_recovered', { token, to, amount, tx_hash: log.transactionHash, block_number: log.blockNumber });
  await indexerRepo.markRecovered(tx, chainId, token, { block: log.blockNumber, logIndex: log.logIndex, txHash: log.transactionHash, time: blockTime });
  deps.logger.warn({ chain_id: chainId, tx_hash: log.transactionHash, token, to, amount: amount.toString() }, 'router excess recovered by its owner');
}
