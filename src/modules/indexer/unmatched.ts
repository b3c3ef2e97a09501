import type { Executor } from '../../db/client.js';
import { decodeCursor, toPage } from '../../db/pagination.js';
import { formatUnits } from '../../lib/money.js';

export type UnmatchedTransfer = {
  id: string; object: 'unmatched_transfer'; chain_id: number; token: string; from: string; value: string; amount: string;
  tx_hash: string; block_number: string; block_time: string; log_index: number;
  recovered: boolean; recovered_tx_hash: string | null; recovered_at: string | null; created_at: string;
};

/**
 * GET /_/unmatched-transfers: USDC sent straight to the router that is still unresolved, newest first; `recovered`
 * once ExcessRecovered moved it out. A front-run x402 transfer the operator attributed or returned is resolved
 * (resolved_at, resolution) and no longer listed.
 */
export async function listUnmatchedTransfers(db: Executor, q: { limit: number; cursor?: string | undefined }) {
  const cursor = decodeCursor(q.cursor);
  let query = db.selectFrom('unmatched_transfers').selectAll().where('resolved_at', 'is', null);
  if (cursor) {
    query = query.where((eb) => eb.or([
      eb('created_at', '<', cursor.createdAt),
      eb.and([eb('created_at', '=', cursor.createdAt), eb('id', '<', cursor.id)]),
    ]));
  }
  const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(q.limit + 1).execute();
  return toPage(rows, q.limit, (r): UnmatchedTransfer => ({
    id: r.id, object: 'unmatched_transfer', chain_id: r.chain_id, token: r.token, from: r.from_address,
    value: BigInt(r.value).toString(), amount: formatUnits(BigInt(r.value)), tx_hash: r.tx_hash,
    block_number: BigInt(r.block_number).toString(), block_time: r.block_time.toISOString(), log_index: r.log_index,
    recovered: r.recovered_tx_hash !== null, recovered_tx_hash: r.recovered_tx_hash, recovered_at: r.recovered_at?.toISOString() ?? null,
    created_at: r.created_at.toISOString(),
  }));
}

/**
 * The x402 payment whose front-run authorization made this transfer (in the claim's transaction): one compare-and-set,
 * so a transfer is claimed by one payment at most. False when it was linked already (the claim is lost: its caller
 * rolls its transaction back).
 */
export const linkUnmatchedTransfer = async (tx: Executor, transferId: string, x402PaymentId: string): Promise<boolean> =>
  (await tx.updateTable('unmatched_transfers').set({ x402_payment_id: x402PaymentId, receipt_due: false }).where('id', '=', transferId)
    .where('x402_payment_id', 'is', null).where('resolved_at', 'is', null).returning('id').executeTakeFirst()) !== undefined;

/**
 * The outcome of the operator's call for a front-run x402 payment, in the transaction that applies it: its transfer
 * is resolved (attributed to the order, or returned to the payer) with that call's hash. Once.
 */
export const resolveUnmatchedTransfer = (tx: Executor, x402PaymentId: string, resolution: 'attributed' | 'returned', txHash: string | null, at: Date) =>
  tx.updateTable('unmatched_transfers').set({ resolved_at: at, resolution, resolution_tx_hash: txHash })
    .where('x402_payment_id', '=', x402PaymentId).where('resolved_at', 'is', null).execute();
