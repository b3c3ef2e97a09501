import type { Tx } from '../../db/client.js';
import type { OperatorTxOutcome } from '../operator-txs/types.js';
import type { SettlementsDeps } from './deps.js';
import { settlementsRepo } from './repo.js';
import { SETTLEMENT_ITEM_TRANSITIONS as ITEM, SETTLEMENT_TRANSITIONS } from './state.js';

/**
 * Operator sender outcome of a settleBatch (purpose 'settlement'). Success or BatchAlreadySettled: the indexer
 * confirms it from BatchSettled. Any other refusal (simulation or mined revert): the batch fails and its
 * orders are unlinked so a later batch carries them.
 */
export async function onSettlementOutcome(deps: Pick<SettlementsDeps, 'logger' | 'clock'>, tx: Tx, o: OperatorTxOutcome): Promise<void> {
  if (o.outcome === 'success' || o.error === 'BatchAlreadySettled') return;
  const reason = o.outcome === 'rejected' ? `router refused: ${o.error}` : `transaction ${o.txHash} reverted: ${o.error}`;
  const failed = await settlementsRepo.update(tx, o.refId, SETTLEMENT_TRANSITIONS.fail.from, { state: SETTLEMENT_TRANSITIONS.fail.to, error: reason.slice(0, 500) });
  if (!failed) return;
  const now = deps.clock.now();
  await settlementsRepo.setItems(tx, o.refId, ITEM.batch_fail.from, { state: ITEM.batch_fail.to, updated_at: now });
  await settlementsRepo.unlinkOrders(tx, o.refId, now);
  deps.logger.warn({ settlement_id: o.refId, reason }, 'settlement batch failed; its orders will be retried');
}
