import type { Hex, TransactionReceipt } from 'viem';
import type { SenderContext } from './context.js';
import { deliverOutcome } from './deliver.js';
import { receiptOf } from './receipt.js';
import { operatorTxsRepo, type OperatorTxRow } from './repo.js';

/**
 * A mined transaction at the chain's confirmation depth (the indexer's rule: block ≤ head − confirmations)
 * is final: its outcome goes to the owner. If its block was reorganised away it is watched again.
 * `prefetched`: its receipt as the pass already read it (null: not found), undefined to read it here.
 */
export async function confirmMined(ctx: SenderContext, row: OperatorTxRow, head: bigint, prefetched?: TransactionReceipt | null): Promise<void> {
  const rt = ctx.chains.get(row.chain_id);
  if (row.block_number === null || row.block_number > head - BigInt(rt.confirmations)) return;
  const r = prefetched !== undefined ? prefetched : await receiptOf(rt.publicClient, row.tx_hash as Hex);
  if (!r || r.blockHash !== row.block_hash) {
    await operatorTxsRepo.unmine(ctx.db, row.id);
    ctx.logger.warn({ operator_tx_id: row.id, tx_hash: row.tx_hash }, 'operator transaction left its block (reorg); watching it again');
    return;
  }
  await deliverOutcome(ctx, row, 'mined', row.outcome ?? 'success', row.error);
}
