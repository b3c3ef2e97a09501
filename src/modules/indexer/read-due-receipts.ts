import { getAddress, isAddressEqual, TransactionReceiptNotFoundError, type Address, type Hex } from 'viem';
import { findArrivals, type Arrival } from '../../chain/find-arrival.js';
import type { ChainRuntime } from '../chains/service.js';
import { alertUnmatched } from './apply-logs.js';
import type { IndexerCtx } from './context.js';
import { indexerRepo, type DueTransfer } from './repo.js';

/**
 * Receipts read per indexer pass at most (each tick). The rest wait in unmatched_transfers (receipt_due), oldest
 * first, for the next passes: deferred, never dropped. Only a transfer from the payer of an open verified x402
 * authorization for its exact amount is due at all (apply-logs.ts), so this is reached only by real payers' transfers.
 */
export const RECEIPTS_PER_PASS = 16;

/**
 * The arrival that made this very transfer (find-arrival.ts): the token's AuthorizationUsed(from, nonce) directly
 * followed by the Transfer at the row's log index, from its sender, of its value. Only that nonce can claim it.
 */
async function arrivalOf(rt: ChainRuntime, t: DueTransfer): Promise<Arrival | null> {
  try {
    const receipt = await rt.publicClient.getTransactionReceipt({ hash: t.tx_hash as Hex });
    if (receipt.status !== 'success') return null;
    return findArrivals(receipt.logs, getAddress(t.token), rt.router)
      .find((a) => a.logIndex === t.log_index && isAddressEqual(a.from, t.from_address as Address) && a.value === t.value) ?? null;
  } catch (err) {
    // Recorded at depth, so gone only after a reorg below it: nothing to claim; the transfer is alerted as unmatched.
    if (err instanceof TransactionReceiptNotFoundError) return null;
    throw err;
  }
}

/**
 * An unmatched transfer whose sender and value matched an open verified x402 authorization (x402 front-running,
 * docs/x402.md): its transaction's receipt is read, and the one authorization whose arrival is this transfer (if any)
 * is proven (the block's header and receipts, before the transaction) and offered to the x402 module, which claims the
 * transfer when it is one it verified (then the operator's call, carrying the proof, is queued in that same
 * transaction). Unclaimed, it is alerted as `unmatched_transfer`, as any other. Returns the receipts read.
 */
export async function readDueReceipts(ctx: IndexerCtx, rt: ChainRuntime, limit = RECEIPTS_PER_PASS): Promise<number> {
  const claims = ctx.authorizedTransfers;
  if (!claims) return 0;
  const due = await indexerRepo.receiptsDue(ctx.db, rt.chainId, limit);
  for (const t of due) {
    const arrival = await arrivalOf(rt, t);
    const proof = arrival ? await claims.prove(rt, { txHash: t.tx_hash as Hex, from: arrival.from, nonce: arrival.nonce }) : null;
    await ctx.db.transaction().execute(async (tx) => {
      if (!(await indexerRepo.takeDue(tx, t.id))) return;
      if (arrival && proof) {
        const e = { chainId: rt.chainId, token: t.token as Address, from: arrival.from, value: t.value, blockTime: t.block_time, nonce: arrival.nonce, txHash: t.tx_hash as Hex, transferId: t.id, proof };
        if (await claims.claim(tx, e)) return;
      }
      await alertUnmatched(tx, ctx, rt.chainId, t.token, t.from_address, t.value, t.tx_hash, t.block_number);
    });
  }
  return due.length;
}
