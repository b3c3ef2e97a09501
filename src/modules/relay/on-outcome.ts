import type { Tx } from '../../db/client.js';
import type { Logger } from '../../lib/logger.js';
import type { OperatorTxOutcome } from '../operator-txs/types.js';
import { relayRepo } from './repo.js';

/**
 * The relayer's transaction reached its outcome (operator-txs delivers it once, inside this transaction):
 * the relay follows it. Success records the gas the relayer paid, on the relay and on the platform's day.
 * The order itself confirms through the indexer's OrderPaid, as for any payment.
 */
export function relayOutcomeHandler(logger: Logger) {
  return async (tx: Tx, o: OperatorTxOutcome): Promise<void> => {
    const relay = await relayRepo.findByOperatorTx(tx, o.id);
    if (!relay) {
      logger.warn({ operator_tx_id: o.id }, 'relay outcome for an unknown relay');
      return;
    }
    const cost = o.gasUsed !== null && o.effectiveGasPrice !== null ? o.gasUsed * o.effectiveGasPrice : null;
    const gas = { tx_hash: o.txHash, gas_used: o.gasUsed, gas_cost_wei: cost?.toString() ?? null };
    if (o.outcome === 'success') {
      await relayRepo.transition(tx, relay.id, 'succeed', gas);
    } else {
      const message = o.outcome === 'rejected' ? `Refused in simulation when sent: ${o.error ?? 'reverted'}.` : `The transaction reverted: ${o.error ?? 'reverted'}.`;
      await relayRepo.transition(tx, relay.id, 'fail', { ...gas, error_code: o.outcome === 'rejected' ? 'simulation_failed' : 'reverted', error_message: message });
    }
    // A reverted transaction burnt gas too: the platform's day carries it.
    if (cost !== null) await relayRepo.addGas(tx, relay.platform_id, relay.day_text, cost);
  };
}
