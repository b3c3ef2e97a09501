import type { Hex } from 'viem';
import { describeError } from '../../lib/redact-urls.js';
import { broadcast } from './broadcast.js';
import type { SenderContext } from './context.js';
import { deliverOutcome } from './deliver.js';
import { afterRecord } from './fault.js';
import { currentFees } from './fees.js';
import { operatorTxsRepo, type OperatorTxRow } from './repo.js';
import { signOperatorTx } from './sign.js';
import { simulate } from './simulate.js';

/**
 * Queued intents in order, as many as the in-flight bound allows: simulate (a revert → rejected, nothing
 * sent), take the nonce, sign locally, RECORD (committed), then broadcast. Stops at the first intent that
 * could not be simulated for a reason other than a revert, so intents keep their order. Returns how many moved.
 */
export async function sendQueued(ctx: SenderContext, chainId: number): Promise<number> {
  const unmined = (await operatorTxsRepo.inFlight(ctx.db, chainId, ctx.account.address)).filter((t) => t.state !== 'mined').length;
  const room = ctx.options.maxInFlight - unmined;
  if (room <= 0) return 0;
  let moved = 0;
  for (const intent of await operatorTxsRepo.queued(ctx.db, chainId, room)) {
    try {
      await sendOne(ctx, chainId, intent);
      moved++;
    } catch (err) {
      ctx.logger.warn({ operator_tx_id: intent.id, purpose: intent.purpose, err: describeError(err) }, 'operator transaction not sent yet; will retry');
      break;
    }
  }
  return moved;
}

/** The nonce after the last one recorded for this sender, or the chain's count if that is higher. */
async function nextNonce(ctx: SenderContext, chainId: number): Promise<bigint> {
  const lease = await operatorTxsRepo.lease(ctx.db, chainId, ctx.account.address);
  const onChain = BigInt(await ctx.chains.get(chainId).publicClient.getTransactionCount({ address: ctx.account.address, blockTag: 'latest' }));
  const recorded = lease?.next_nonce ?? 0n;
  return recorded > onChain ? recorded : onChain;
}

async function sendOne(ctx: SenderContext, chainId: number, intent: OperatorTxRow): Promise<void> {
  const client = ctx.chains.get(chainId).publicClient;
  const to = intent.to_address as Hex;
  const data = intent.calldata as Hex;
  const sim = await simulate(client, ctx.account, to, data);
  if (!sim.ok) return deliverOutcome(ctx, intent, 'queued', 'rejected', sim.error);
  const nonce = await nextNonce(ctx, chainId);
  const fees = await currentFees(client, ctx.options.maxFeePerGas);
  const signed = await signOperatorTx(ctx.account, { chainId, to, data, nonce, gas: sim.gasLimit, fees });
  const row = await ctx.db.transaction().execute((tx) => operatorTxsRepo.recordSigned(tx, intent.id, ctx.account.address, ctx.holder, chainId, {
    nonce, hash: signed.hash, raw: signed.raw, gasLimit: sim.gasLimit, maxFee: fees.maxFeePerGas, maxPriority: fees.maxPriorityFeePerGas,
  }));
  afterRecord(ctx);
  await broadcastRecorded(ctx, chainId, row, signed.raw);
}

/** Broadcasts a recorded raw transaction and notes it; a failure leaves it recorded for the monitor to retry. */
export async function broadcastRecorded(ctx: SenderContext, chainId: number, row: OperatorTxRow, raw: Hex): Promise<void> {
  const r = await broadcast(ctx.chains.get(chainId).publicClient, raw);
  if (r.result === 'failed') {
    ctx.logger.warn({ operator_tx_id: row.id, nonce: row.nonce?.toString(), err: r.error }, 'broadcast failed; the recorded transaction will be sent again');
    return;
  }
  await operatorTxsRepo.markSent(ctx.db, row.id);
  ctx.logger.info({ operator_tx_id: row.id, purpose: row.purpose, nonce: row.nonce?.toString(), tx_hash: row.tx_hash, result: r.result }, 'operator transaction broadcast');
}
