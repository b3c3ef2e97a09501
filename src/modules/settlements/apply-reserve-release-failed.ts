import type { Tx } from '../../db/client.js';
import { recordAlert } from '../alerts/service.js';
import type { ReserveReleaseLog } from './apply-reserve-released.js';
import type { SettlementsDeps } from './deps.js';
import { settlementsRepo } from './repo.js';
import { SETTLEMENT_ITEM_TRANSITIONS as ITEM } from './state.js';

/**
 * Chain event ReserveReleaseFailed (indexer hook): the token refused the transfer (e.g. a blocklisted
 * merchant). The reserve stays recorded; the order leaves this batch so a later one retries it (after
 * run-batch's RELEASE_RETRY_MS, measured from this item's updated_at).
 */
export async function applyReserveReleaseFailed(deps: Pick<SettlementsDeps, 'logger' | 'clock'>, tx: Tx, e: ReserveReleaseLog): Promise<void> {
  const s = await settlementsRepo.lockByOnchainId(tx, e.batchOnchainId);
  const order = await settlementsRepo.lockOrderByOnchainId(tx, e.chainId, e.orderOnchainId);
  await recordAlert(tx, e.chainId, 'reserve_release_failed', {
    order_id: order?.id ?? null, order_onchain_id: e.orderOnchainId, settlement_id: s?.id ?? null, merchant: e.merchant, amount: e.amount, tx_hash: e.txHash,
  });
  deps.logger.error({ chain_id: e.chainId, order_id: order?.id, merchant: e.merchant }, 'ALERT: the token refused a reserve release; the reserve stays in the router');
  if (!s || !order) return;
  const now = deps.clock.now();
  await settlementsRepo.setItems(tx, s.id, ITEM.release_fail.from, { state: ITEM.release_fail.to, updated_at: now }, order.id);
  await settlementsRepo.unlinkOrders(tx, s.id, now, [order.id]);
}
