import type { Tx } from '../../db/client.js';
import type { OperatorTxOutcome } from '../operator-txs/types.js';
import type { RelayDeps } from './context.js';
import { isPayerFault, PAYER_BAN_SECONDS } from './payer-fault.js';
import { relayRepo } from './repo.js';

type Failure = { code: string; message: string };

/** What the relay records of a failed outcome: refused by the sender (no gas), or reverted on chain. */
function failureOf(o: OperatorTxOutcome): Failure {
  if (o.outcome === 'rejected' && o.error === 'gas_limit_exceeded') return { code: 'gas_limit_exceeded', message: 'Refused when sent: it would now need more gas than when it was accepted.' };
  if (o.outcome === 'rejected') return { code: 'simulation_failed', message: `Refused in simulation when sent: ${o.error ?? 'reverted'}.` };
  return { code: 'reverted', message: `The transaction reverted: ${o.error ?? 'reverted'}.` };
}

/**
 * The relayer's transaction reached its outcome (operator-txs delivers it once, inside this transaction): the
 * relay follows it. Its reservation leaves the relayer's day and what it really cost (gas used × effective gas
 * price, also for a revert) joins it and the platform's day. A relay that did not pay gives its slot of the
 * platform's cap back and is counted as reverted; when the payer caused it (payer-fault.ts) the payer is refused
 * gasless for 24 h of the chain's clock and on this order for good. The order itself confirms through the
 * indexer's OrderPaid, as for any payment.
 */
export function relayOutcomeHandler(deps: Pick<RelayDeps, 'logger' | 'chains'>) {
  return async (tx: Tx, o: OperatorTxOutcome): Promise<void> => {
    const relay = await relayRepo.findByOperatorTx(tx, o.id);
    if (!relay) {
      deps.logger.warn({ operator_tx_id: o.id }, 'relay outcome for an unknown relay');
      return;
    }
    const cost = o.gasUsed !== null && o.effectiveGasPrice !== null ? o.gasUsed * o.effectiveGasPrice : null;
    const gas = { tx_hash: o.txHash, gas_used: o.gasUsed, gas_cost_wei: cost?.toString() ?? null };
    await relayRepo.settleBudget(tx, relay.chain_id, relay.day_text, BigInt(relay.reserved), cost ?? 0n);
    if (cost !== null) await relayRepo.addGas(tx, relay.platform_id, relay.day_text, cost);
    if (o.outcome === 'success') {
      await relayRepo.transition(tx, relay.id, 'succeed', gas);
      return;
    }
    const failure = failureOf(o);
    await relayRepo.transition(tx, relay.id, 'fail', { ...gas, error_code: failure.code, error_message: failure.message });
    await relayRepo.releaseSlot(tx, relay.platform_id, relay.day_text);
    if (!isPayerFault(o.error)) return;
    const now = BigInt(Math.floor(deps.chains.get(relay.chain_id).clock.now().getTime() / 1000));
    await relayRepo.banPayer(tx, { payer: relay.payer, orderId: relay.order_id, until: now + PAYER_BAN_SECONDS, reason: o.error! });
    deps.logger.warn({ relay_id: relay.id, order_id: relay.order_id, payer: relay.payer, reason: o.error }, 'gasless relay failed for a cause the payer controls; payer refused gasless for 24 h and on this order');
  };
}
