import type { Hex } from 'viem';
import { describeError } from '../../lib/redact-urls.js';
import type { SenderContext } from './context.js';
import { confirmMined } from './confirm.js';
import { firstMined, knownToNode } from './receipt.js';
import { recordMined } from './record-mined.js';
import { replaceStuck } from './replace.js';
import { operatorTxsRepo, type OperatorTxRow } from './repo.js';
import { broadcastRecorded } from './send-queued.js';

/** Node reads made at once by a pass (the writes stay one at a time, in nonce order). */
const READS_AT_ONCE = 16;

/** Every recorded transaction of this sender on the chain, lowest nonce first: watched until final. */
export async function monitorInFlight(ctx: SenderContext, chainId: number): Promise<void> {
  const rt = ctx.chains.get(chainId);
  const rows = await operatorTxsRepo.inFlight(ctx.db, chainId, ctx.account.address);
  if (rows.length === 0) return;
  const head = await rt.publicClient.getBlockNumber({ cacheTime: 0 });
  // Nonces this key has used, read once per pass BEFORE any receipt is looked at: a transaction whose nonce is
  // not below it cannot have been mined when the pass began (the next pass sees it if it is mined since).
  const used = BigInt(await rt.publicClient.getTransactionCount({ address: ctx.account.address, blockTag: 'latest' }));
  const known = await prefetchKnown(ctx, rows.filter((r) => r.state === 'sent' && r.nonce! >= used));
  for (const row of rows) {
    try {
      if (row.state === 'mined') await confirmMined(ctx, row, head);
      else await watch(ctx, row, used, known.get(row.id));
    } catch (err) {
      ctx.logger.warn({ operator_tx_id: row.id, err: describeError(err) }, 'operator transaction check failed; will retry');
    }
  }
}

/**
 * Recorded (perhaps never broadcast: the sender died in between) or sent: a receipt for any of its hashes
 * is its outcome; a nonce consumed by none of them means it never ran (queued again); otherwise it is
 * broadcast (again), and after replaceMs replaced with higher fees.
 */
/** Whether the node knows each sent transaction, asked concurrently (reads only); a failed read is left out. */
async function prefetchKnown(ctx: SenderContext, rows: OperatorTxRow[]): Promise<Map<string, boolean>> {
  const out = new Map<string, boolean>();
  for (let i = 0; i < rows.length; i += READS_AT_ONCE) {
    const chunk = rows.slice(i, i + READS_AT_ONCE);
    const r = await Promise.allSettled(chunk.map((row) => knownToNode(ctx.chains.get(row.chain_id).publicClient, row.tx_hash as Hex)));
    r.forEach((v, j) => v.status === 'fulfilled' && out.set(chunk[j]!.id, v.value));
  }
  return out;
}

async function watch(ctx: SenderContext, row: OperatorTxRow, used: bigint, known: boolean | undefined): Promise<void> {
  const client = ctx.chains.get(row.chain_id).publicClient;
  if (used > row.nonce!) {
    const hashes = (await operatorTxsRepo.attempts(ctx.db, row.id)).map((a) => a.tx_hash as Hex);
    const mined = await firstMined(client, hashes);
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
  if (!(known ?? (await knownToNode(client, row.tx_hash as Hex))) || now - (row.sent_at?.getTime() ?? 0) > ctx.options.rebroadcastMs) {
    return broadcastRecorded(ctx, row.chain_id, row, raw);
  }
}
