import type { Hex } from 'viem';
import type { Tx } from '../../db/client.js';
import type { Logger } from '../../lib/logger.js';
import { recordAlert } from '../alerts/service.js';
import { failRefund } from './fail.js';
import { refundsRepo } from './repo.js';
import { REFUND_TRANSITIONS } from './state.js';
import { canMove } from '../../lib/transitions.js';

export type RefundCancelledLog = { chainId: number; refundOnchainId: Hex; txHash: Hex; blockTime: Date };

/**
 * Chain event RefundCancelled (indexer hook): the router cancelled the refund's signature, so it can never
 * execute. Only now does an open refund become failed (reason: the one given when the cancellation was
 * asked), freeing its amount.
 */
export async function applyRefundCancelled(deps: { logger: Logger }, tx: Tx, e: RefundCancelledLog): Promise<void> {
  const refund = await refundsRepo.lockByOnchainId(tx, e.refundOnchainId);
  if (!refund) {
    await recordAlert(tx, e.chainId, 'unknown_refund_cancelled', { refund_onchain_id: e.refundOnchainId, tx_hash: e.txHash });
    return;
  }
  if (!canMove(REFUND_TRANSITIONS, refund.state, 'fail')) {
    if (refund.state === 'completed') await recordAlert(tx, e.chainId, 'refund_cancelled_after_completion', { refund_id: refund.id, tx_hash: e.txHash });
    return;
  }
  await failRefund(tx, refund, refund.cancel_reason ?? 'cancelled');
  deps.logger.info({ refund_id: refund.id, tx_hash: e.txHash }, 'refund cancelled on chain; failed');
}
