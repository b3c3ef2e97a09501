import type { Hex, PublicClient, TransactionReceipt } from 'viem';
import type { SenderContext } from './context.js';
import { revertNameOf } from './decode-revert.js';
import { operatorTxsRepo, type OperatorTxRow } from './repo.js';

/**
 * The revert reason of a mined transaction, from the same call replayed at its block (the state after that
 * block: the closest a node offers without tracing). null when the replay does not revert there.
 */
async function revertReasonAt(client: PublicClient, ctx: SenderContext, row: OperatorTxRow, blockNumber: bigint): Promise<string | null> {
  try {
    await client.call({ account: ctx.account.address, to: row.to_address as Hex, data: row.calldata as Hex, blockNumber });
    return null;
  } catch (err) {
    return revertNameOf(err) ?? 'reverted';
  }
}

/** A receipt for one of the intent's hashes: that transaction is the outcome (status, gas, price recorded). */
export async function recordMined(ctx: SenderContext, client: PublicClient, row: OperatorTxRow, r: TransactionReceipt): Promise<void> {
  const outcome = r.status === 'success' ? 'success' : 'reverted';
  const error = outcome === 'reverted' ? ((await revertReasonAt(client, ctx, row, r.blockNumber)) ?? 'reverted') : null;
  await operatorTxsRepo.markMined(ctx.db, row.id, {
    outcome, hash: r.transactionHash, blockNumber: r.blockNumber, blockHash: r.blockHash, gasUsed: r.gasUsed, effectiveGasPrice: r.effectiveGasPrice, error,
  });
  ctx.logger.info({ operator_tx_id: row.id, purpose: row.purpose, tx_hash: r.transactionHash, block: r.blockNumber.toString(), outcome, error, gas_used: r.gasUsed.toString() }, 'operator transaction mined');
}
