import type { Tx } from '../../db/client.js';
import { recordAlert } from '../alerts/service.js';
import type { OperatorTxOutcome } from '../operator-txs/types.js';
import type { AuthorizationsDeps } from './deps.js';
import { authorizationsRepo } from './repo.js';

/**
 * Outcome of capture(…): success needs nothing here (the indexer applies OrderCaptured + OrderPaid at depth). A
 * capture the chain refused (simulation revert: nothing sent; or mined and reverted, e.g. CaptureExpired when it
 * lost the race against capture_before) ends failed: the request is cleared, the order stays authorized (it may
 * be captured again while its window lasts; after it, the sweeper voids it).
 */
export const captureOutcomeHandler = (deps: Pick<AuthorizationsDeps, 'logger' | 'clock'>) => async (tx: Tx, o: OperatorTxOutcome): Promise<void> => {
  if (o.outcome === 'success') return;
  await authorizationsRepo.clearCaptureRequest(tx, o.refId, deps.clock.now());
  await recordAlert(tx, o.chainId, 'capture_failed', { order_id: o.refId, outcome: o.outcome, error: o.error, tx_hash: o.txHash });
  deps.logger.warn({ order_id: o.refId, outcome: o.outcome, error: o.error, tx_hash: o.txHash }, 'capture not executed; the order stays authorized');
};

/**
 * Outcome of voidAuthorization: success needs nothing here (the indexer applies AuthorizationVoided). A void is
 * sent once; a refused one (NotAuthorized: captured or reclaimed first, which the indexer applies; or the token
 * refusing the payer) is an alert, and the payer can still reclaim after capture_before.
 */
export const voidOutcomeHandler = (deps: Pick<AuthorizationsDeps, 'logger'>) => async (tx: Tx, o: OperatorTxOutcome): Promise<void> => {
  if (o.outcome === 'success') return;
  await recordAlert(tx, o.chainId, 'void_failed', { order_id: o.refId, outcome: o.outcome, error: o.error, tx_hash: o.txHash });
  deps.logger.warn({ order_id: o.refId, outcome: o.outcome, error: o.error }, 'voidAuthorization not executed');
};
