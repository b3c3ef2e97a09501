import type { Tx } from '../../db/client.js';
import type { OperatorTxOutcome, OutcomeHandler } from '../operator-txs/types.js';
import { x402Repo } from './repo.js';

/**
 * The relayer's transactions are the relay module's (purpose 'relay'); an x402 payment follows its relay's
 * outcome too, in the same transaction: settled when payOrderWithTransfer succeeded at depth, failed otherwise
 * (a front-run authorization is taken from there by the indexer, front-run.ts).
 */
export function withX402Outcome(relayHandler: OutcomeHandler): OutcomeHandler {
  return async (tx: Tx, o: OperatorTxOutcome) => {
    await relayHandler(tx, o);
    const payment = await x402Repo.byRelay(tx, o.refId); // a relay intent's ref_id is its relay's id
    if (!payment) return;
    if (o.outcome === 'success') await x402Repo.transition(tx, payment.id, 'settle', { tx_hash: o.txHash });
    else await x402Repo.transition(tx, payment.id, 'fail', { tx_hash: o.txHash, error: o.error ?? o.outcome });
  };
}
