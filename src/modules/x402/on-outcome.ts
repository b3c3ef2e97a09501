import type { Tx } from '../../db/client.js';
import type { OperatorTxOutcome, OutcomeHandler } from '../operator-txs/types.js';
import { liftFrontRunBan } from '../relay/lift-ban.js';
import { x402Repo, type X402Status } from './repo.js';

const CLAIMED = new Set<X402Status>(['front_run', 'attributed', 'returned']);

/**
 * The relayer's transactions are the relay module's (purpose 'relay'); an x402 payment follows its relay's
 * outcome too, in the same transaction: settled when payOrderWithTransfer succeeded at depth, failed otherwise
 * (a front-run authorization is taken from there by the indexer, front-run.ts; one the indexer proved front-run
 * before this outcome has the ban its relay's failure set lifted here).
 */
export function withX402Outcome(relayHandler: OutcomeHandler): OutcomeHandler {
  return async (tx: Tx, o: OperatorTxOutcome) => {
    await relayHandler(tx, o);
    const payment = await x402Repo.byRelay(tx, o.refId); // a relay intent's ref_id is its relay's id
    if (!payment) return;
    // Claimed as a front-run before its relay's outcome: the relay's ban on the used nonce is lifted (front-run.ts).
    if (CLAIMED.has(payment.status)) await liftFrontRunBan(tx, payment.payer, payment.order_id);
    if (o.outcome === 'success') await x402Repo.transition(tx, payment.id, 'settle', { tx_hash: o.txHash });
    else await x402Repo.transition(tx, payment.id, 'fail', { tx_hash: o.txHash, error: o.error ?? o.outcome });
  };
}
