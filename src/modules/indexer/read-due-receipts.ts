import { isAddressEqual, parseEventLogs, TransactionReceiptNotFoundError, type Address, type Hex } from 'viem';
import type { ChainRuntime } from '../chains/service.js';
import { alertUnmatched } from './apply-logs.js';
import type { IndexerCtx } from './context.js';
import { AUTHORIZATION_USED_EVENT } from './events.js';
import { indexerRepo, type DueTransfer } from './repo.js';

/**
 * Receipts read per indexer pass at most (each tick). The rest wait in unmatched_transfers (receipt_due), oldest
 * first, for the next passes: deferred, never dropped. Only a transfer from the payer of an open verified x402
 * authorization for its exact amount is due at all (apply-logs.ts), so this is reached only by real payers' transfers.
 */
export const RECEIPTS_PER_PASS = 16;

/** The nonces of `from`'s ERC-3009 authorizations the token reports used in the transaction (AuthorizationUsed). */
async function noncesUsed(rt: ChainRuntime, t: DueTransfer): Promise<Hex[]> {
  try {
    const receipt = await rt.publicClient.getTransactionReceipt({ hash: t.tx_hash as Hex });
    if (receipt.status !== 'success') return [];
    return parseEventLogs({ abi: [AUTHORIZATION_USED_EVENT], logs: receipt.logs, strict: true })
      .filter((l) => isAddressEqual(l.address, rt.usdc) && isAddressEqual(l.args.authorizer, t.from_address as Address))
      .map((l) => l.args.nonce);
  } catch (err) {
    // Recorded at depth, so gone only after a reorg below it: nothing to claim; the transfer is alerted as unmatched.
    if (err instanceof TransactionReceiptNotFoundError) return [];
    throw err;
  }
}

/**
 * An unmatched transfer whose sender and value matched an open verified x402 authorization (x402 front-running,
 * docs/x402.md): its transaction's receipt is read and every AuthorizationUsed of the sender is offered to the x402
 * module, which claims the transfer when it is one it verified (then the operator's call is queued in that same
 * transaction). Unclaimed, it is alerted as `unmatched_transfer`, as any other. Returns the receipts read.
 */
export async function readDueReceipts(ctx: IndexerCtx, rt: ChainRuntime, limit = RECEIPTS_PER_PASS): Promise<number> {
  const claims = ctx.authorizedTransfers;
  if (!claims) return 0;
  const due = await indexerRepo.receiptsDue(ctx.db, rt.chainId, limit);
  for (const t of due) {
    const nonces = await noncesUsed(rt, t);
    await ctx.db.transaction().execute(async (tx) => {
      if (!(await indexerRepo.takeDue(tx, t.id))) return;
      for (const nonce of nonces) {
        const e = { chainId: rt.chainId, token: t.token as Address, from: t.from_address as Address, value: t.value, blockTime: t.block_time, nonce, txHash: t.tx_hash as Hex, transferId: t.id };
        if (await claims.claim(tx, e)) return;
      }
      await alertUnmatched(tx, ctx, rt.chainId, t.token, t.from_address, t.value, t.tx_hash, t.block_number);
    });
  }
  return due.length;
}
