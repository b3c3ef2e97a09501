import type { Address, Hex } from 'viem';
import type { Tx } from '../../db/client.js';
import { recordAlert } from '../alerts/service.js';
import type { SettlementsDeps } from './deps.js';
import { settlementsRepo } from './repo.js';
import { SETTLEMENT_ITEM_TRANSITIONS as ITEM } from './state.js';

export type ReserveReleaseLog = { chainId: number; orderOnchainId: Hex; batchOnchainId: Hex; merchant: Address; amount: bigint; txHash: Hex };

/**
 * Chain event ReserveReleased (indexer hook, inside the indexer's transaction; never throws for bad data:
 * alerts instead). The order's reserve goes down by what the router paid out, its batch item is released.
 * Lock order everywhere: settlement row, then order rows (onOutcome does the same).
 */
export async function applyReserveReleased(deps: Pick<SettlementsDeps, 'logger' | 'clock'>, tx: Tx, e: ReserveReleaseLog): Promise<void> {
  const s = await settlementsRepo.lockByOnchainId(tx, e.batchOnchainId);
  const order = await settlementsRepo.lockOrderByOnchainId(tx, e.chainId, e.orderOnchainId);
  if (!s) await recordAlert(tx, e.chainId, 'unknown_settlement', { batch_onchain_id: e.batchOnchainId, order_onchain_id: e.orderOnchainId, tx_hash: e.txHash });
  if (!order) {
    await recordAlert(tx, e.chainId, 'unknown_order_release', { order_onchain_id: e.orderOnchainId, amount: e.amount, tx_hash: e.txHash });
    deps.logger.error({ chain_id: e.chainId, order_onchain_id: e.orderOnchainId }, 'ALERT: reserve released for an unknown order');
    return;
  }
  let reserve = order.reserve_remaining - e.amount;
  if (reserve < 0n) {
    await recordAlert(tx, e.chainId, 'reserve_out_of_sync', { order_id: order.id, reserve_remaining: order.reserve_remaining, released: e.amount, tx_hash: e.txHash });
    reserve = 0n;
  }
  const now = deps.clock.now();
  await settlementsRepo.setOrderReserve(tx, order.id, reserve, now);
  if (!s) return;
  const items = await settlementsRepo.setItems(tx, s.id, ITEM.release.from, { state: ITEM.release.to, released_amount: e.amount, updated_at: now }, order.id);
  if (items.length === 0) await recordAlert(tx, e.chainId, 'release_not_in_batch', { settlement_id: s.id, order_id: order.id, tx_hash: e.txHash });
}
