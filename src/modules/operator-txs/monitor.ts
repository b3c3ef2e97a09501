import type { Hex, TransactionReceipt } from 'viem';
import { describeError } from '../../lib/redact-urls.js';
import type { SenderContext } from './context.js';
import { confirmMined } from './confirm.js';
import { firstMined, knownToNode, receiptOf } from './receipt.js';
import { recordMined } from './record-mined.js';
import { replaceStuck } from './replace.js';
import { operatorTxsRepo, type OperatorTxRow } from './repo.js';
import { broadcastRecorded } from './send-queued.js';

/** Node reads made at once by a pass (the writes stay one at a time, in nonce order). */
const READS_AT_ONCE = 16;

/** What a pass read of the node before looking at each row (reads only, concurrent; a failed read is left out). */
type Reads = { known: Map<string, boolean>; receipts: Map<string, TransactionReceipt | null> };

/** Every recorded transaction of this sender on the chain, lowest nonce first: watched until final. */
export async function monitorInFlight(ctx: SenderContext, chainId: number): Promise<void> {
  const rt = ctx.chains.get(chainId);
  const rows = await operatorTxsRepo.inFlight(ctx.db, chainId, ctx.account.address);
  if (rows.length === 0) return;
  const head = await rt.publicClient.getBlockNumber({ cacheTime: 0 });
  // Nonces this key has used, read once per pass BEFORE any receipt is looked at: a transaction whose nonce is
  // not below it cannot have been mined when the pass began (the next pass sees it if it is mined since).
  const used = BigInt(await rt.publicClient.getTransactionCount({ address: ctx.account.address, blockTag: 'latest' }));
  // The node's pending count covers only an unbroken run of nonces in its pool: a sent transaction below it is
  // known to the node, and only those at or above it (dropped, or behind a gap) are asked about one by one.
  const pending = BigInt(await rt.publicClient.getTransactionCount({ address: ctx.account.address, blockTag: 'pending' }));
  const reads = await prefetch(ctx, rows, used, pending, head);
  for (const row of rows) {
    try {
      if (row.state === 'mined') await confirmMined(ctx, row, head, reads.receipts.get(row.id));
      else await watch(ctx, row, used, reads);
    } catch (err) {
      ctx.logger.warn({ operator_tx_id: row.id, err: describeError(err) }, 'operator transaction check failed; will retry');
    }
  }
}

/**
 * Concurrent reads for the pass: the receipt of each row mined by now (nonce below `used`, or mined at
 * confirmation depth), and whether the node knows each sent transaction at or above `pending`.
 */
async function prefetch(ctx: SenderContext, rows: OperatorTxRow[], used: bigint, pending: bigint, head: bigint): Promise<Reads> {
  const reads: Reads = { known: new Map(), receipts: new Map() };
  const depth = BigInt(ctx.chains.get(rows[0]!.chain_id).confirmations);
  const jobs: (() => Promise<void>)[] = [];
  for (const row of rows) {
    const client = ctx.chains.get(row.chain_id).publicClient;
    const hash = row.tx_hash as Hex;
    const due = row.state === 'mined' ? row.block_number !== null && row.block_number <= head - depth : row.nonce! < used;
    if (due) jobs.push(async () => void reads.receipts.set(row.id, await receiptOf(client, hash)));
    else if (row.state === 'sent' && row.nonce! >= pending) jobs.push(async () => void reads.known.set(row.id, await knownToNode(client, hash)));
    else if (row.state === 'sent') reads.known.set(row.id, true);
  }
  for (let i = 0; i < jobs.length; i += READS_AT_ONCE) await Promise.allSettled(jobs.slice(i, i + READS_AT_ONCE).map((j) => j()));
  return reads;
}

/**
 * Recorded (perhaps never broadcast: the sender died in between) or sent: a receipt for any of its hashes
 * is its outcome; a nonce consumed by none of them means it never ran (queued again); otherwise it is
 * broadcast (again), and after replaceMs replaced with higher fees.
 */
async function watch(ctx: SenderContext, row: OperatorTxRow, used: bigint, reads: Reads): Promise<void> {
  const client = ctx.chains.get(row.chain_id).publicClient;
  if (used > row.nonce!) {
    const mined = reads.receipts.get(row.id) ?? (await firstMined(client, (await operatorTxsRepo.attempts(ctx.db, row.id)).map((a) => a.tx_hash as Hex)));
    if (mined) return recordMined(ctx, client, row, mined);
    await operatorTxsRepo.requeue(ctx.db, row.id, 'nonce consumed by a transaction that is not ours');
    ctx.logger.error({ operator_tx_id: row.id, nonce: row.nonce!.toString() }, 'ALERT: an operator nonce was used outside this service; the intent is queued again');
    return;
  }
  const raw = row.raw_tx as Hex;
  const now = Date.now();
  // Also a recorded transaction the node keeps refusing (e.g. its fees fell below the base fee): re-signed higher.
  if (now - (row.signed_at?.getTime() ?? now) > ctx.options.replaceMs) return replaceStuck(ctx, row);
  if (row.state === 'signed') return broadcastRecorded(ctx, row.chain_id, row, raw);
  if (!(reads.known.get(row.id) ?? (await knownToNode(client, row.tx_hash as Hex))) || now - (row.sent_at?.getTime() ?? 0) > ctx.options.rebroadcastMs) {
    return broadcastRecorded(ctx, row.chain_id, row, raw);
  }
}
