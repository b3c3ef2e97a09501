import type { Hex } from 'viem';
import type { Tx } from '../../db/client.js';
import { canMove } from '../../lib/transitions.js';
import { recordAlert } from '../alerts/service.js';
import { emitEvent } from '../events/service.js';
import type { SettlementsDeps } from './deps.js';
import { settlementsRepo } from './repo.js';
import { serializeSettlement } from './serialize.js';
import { SETTLEMENT_ITEM_TRANSITIONS as ITEM, SETTLEMENT_TRANSITIONS } from './state.js';

export type BatchSettledLog = { chainId: number; batchOnchainId: Hex; orderCount: bigint; totalReleased: bigint; txHash: Hex; blockTime: Date };

/**
 * Chain event BatchSettled (indexer hook): the batch is confirmed with what the router actually released,
 * even one the service had failed (chain wins, with an alert); each platform with orders in it gets
 * settlement.completed with its own items only.
 */
export async function applyBatchSettled(deps: Pick<SettlementsDeps, 'logger' | 'clock'>, tx: Tx, e: BatchSettledLog): Promise<void> {
  const s = await settlementsRepo.lockByOnchainId(tx, e.batchOnchainId);
  if (!s) {
    await recordAlert(tx, e.chainId, 'unknown_settlement', { batch_onchain_id: e.batchOnchainId, order_count: e.orderCount, total: e.totalReleased, tx_hash: e.txHash });
    deps.logger.error({ chain_id: e.chainId, batch_onchain_id: e.batchOnchainId }, 'ALERT: BatchSettled for an unknown batch');
    return;
  }
  if (!canMove(SETTLEMENT_TRANSITIONS, s.state, 'confirm')) return; // confirmed already
  if (s.state === 'failed') await recordAlert(tx, e.chainId, 'settlement_confirmed_after_failure', { settlement_id: s.id, error: s.error, tx_hash: e.txHash });
  const confirmed = (await settlementsRepo.update(tx, s.id, [s.state], {
    state: SETTLEMENT_TRANSITIONS.confirm.to, tx_hash: e.txHash, confirmed_at: e.blockTime, order_count: Number(e.orderCount), total: e.totalReleased, error: null,
  }))!;
  // Orders the router skipped had nothing left (a refund spent the reserve after the batch was built).
  await settlementsRepo.setItems(tx, s.id, ITEM.skip.from, { state: ITEM.skip.to, updated_at: deps.clock.now() });
  for (const platformId of await settlementsRepo.platformsOf(tx, s.id)) {
    const items = await settlementsRepo.items(tx, [s.id], platformId);
    await emitEvent(tx, { platformId, type: 'settlement.completed', data: { object: serializeSettlement(confirmed, items) } });
  }
}
