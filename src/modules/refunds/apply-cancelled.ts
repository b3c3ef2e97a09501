import type { Hex } from 'viem';
import type { Executor, Tx } from '../../db/client.js';
import type { Logger } from '../../lib/logger.js';
import { recordAlert } from '../alerts/service.js';
import { OPEN_STATES, refundsRepo, type RefundRow } from './repo.js';

export type RefundCancelledLog = { chainId: number; refundOnchainId: Hex; txHash: Hex; blockTime: Date };
type Fail = (tx: Executor, refund: RefundRow, reason: string) => Promise<RefundRow | undefined>;

/**
 * Indexer hook: the router cancelled the refund's signature, so it can never execute. Only now does an
 * open refund become failed (reason: the one given when the cancellation was asked), freeing its amount.
 */
export function applyRefundCancelledWith(fail: Fail, logger: Logger) {
  return async (tx: Tx, e: RefundCancelledLog): Promise<void> => {
    const refund = await refundsRepo.lockByOnchainId(tx, e.refundOnchainId);
    if (!refund) {
      await recordAlert(tx, e.chainId, 'unknown_refund_cancelled', { refund_onchain_id: e.refundOnchainId, tx_hash: e.txHash });
      return;
    }
    if (!OPEN_STATES.includes(refund.state)) {
      if (refund.state === 'completed') await recordAlert(tx, e.chainId, 'refund_cancelled_after_completion', { refund_id: refund.id, tx_hash: e.txHash });
      return;
    }
    await fail(tx, refund, refund.cancel_reason ?? 'cancelled');
    logger.info({ refund_id: refund.id, tx_hash: e.txHash }, 'refund cancelled on chain; failed');
  };
}
