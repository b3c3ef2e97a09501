import type { Hex } from 'viem';
import type { SenderContext } from './context.js';
import { operatorTxsRepo, type OperatorTxOutcomeKind, type OperatorTxRow, type OperatorTxState } from './repo.js';
import type { OperatorTxPurpose } from './types.js';

/**
 * Resolves an intent and hands its outcome to the owner's handler in the same transaction: the record says
 * delivered exactly when the owner's change committed. A compare-and-set on the state makes it once only.
 */
export async function deliverOutcome(ctx: SenderContext, row: OperatorTxRow, from: OperatorTxState, outcome: OperatorTxOutcomeKind, error: string | null) {
  const handler = ctx.handlers.get(row.purpose as OperatorTxPurpose);
  await ctx.db.transaction().execute(async (tx) => {
    const done = await operatorTxsRepo.finish(tx, row.id, from, { state: outcome === 'rejected' ? 'rejected' : 'done', outcome, error });
    if (!done) return;
    if (!handler) {
      ctx.logger.warn({ operator_tx_id: row.id, purpose: row.purpose }, 'operator transaction outcome with no handler registered');
      return;
    }
    await handler(tx, {
      id: row.id, chainId: row.chain_id, purpose: row.purpose as OperatorTxPurpose, refId: row.ref_id, outcome, error,
      txHash: outcome === 'rejected' ? null : (row.tx_hash as Hex | null),
      gasUsed: outcome === 'rejected' ? null : row.gas_used,
      effectiveGasPrice: outcome === 'rejected' || row.effective_gas_price === null ? null : BigInt(row.effective_gas_price),
    });
  });
  ctx.logger.info({ operator_tx_id: row.id, purpose: row.purpose, ref_id: row.ref_id, outcome, error, tx_hash: row.tx_hash }, 'operator transaction resolved');
}
