import type { Hex } from 'viem';
import { describeError } from '../../lib/redact-urls.js';
import { broadcast } from './broadcast.js';
import type { SenderContext } from './context.js';
import { deliverOutcome } from './deliver.js';
import { afterRecord } from './fault.js';
import { capFees, currentFees, type Fees } from './fees.js';
import { operatorTxsRepo, type OperatorTxRow } from './repo.js';
import { gasCeilingOf, signOperatorTx } from './sign.js';
import { simulate, type Simulation } from './simulate.js';

/** Simulations run this many at a time (RPC reads only; signing and recording stay in order). */
const SIMULATE_AT_ONCE = 8;
/** Intents signed and recorded per database transaction, then broadcast together. */
const RECORD_AT_ONCE = 64;

type Pass = { nonce: bigint; fees: Fees };

/**
 * Queued intents in order, as many as the in-flight bound allows: simulate (a revert → rejected, nothing
 * sent; the relayer's against the PENDING block, so a transfer the payer has just sent is seen, and with at
 * most RELAYER_GAS_LIMIT), check the gas against the intent's own limit (more → rejected, `gas_limit_exceeded`),
 * take the nonce, sign locally, RECORD (committed), then broadcast. Stops at the first intent that could not be
 * simulated for a reason other than a revert, so intents keep their order. Returns how many moved.
 * Within a pass the fees are read once and the nonce is taken once and then counted up by what is recorded
 * (the lease is held throughout: recordSigned refuses otherwise). Chunks of up to 64: simulated 8 at a time,
 * the sendable ones recorded in one transaction, then broadcast concurrently.
 */
export async function sendQueued(ctx: SenderContext, chainId: number): Promise<number> {
  const unmined = (await operatorTxsRepo.inFlight(ctx.db, chainId, ctx.account.address)).filter((t) => t.state !== 'mined').length;
  const room = (ctx.keyRole === 'relayer' ? ctx.options.relayerMaxInFlight : ctx.options.maxInFlight) - unmined;
  if (room <= 0) return 0;
  const intents = await operatorTxsRepo.queued(ctx.db, chainId, ctx.keyRole, room);
  const client = ctx.chains.get(chainId).publicClient;
  let pass: Pass | undefined;
  let moved = 0;
  for (let i = 0; i < intents.length; i += RECORD_AT_ONCE) {
    const chunk = intents.slice(i, i + RECORD_AT_ONCE);
    const sims = await simulateChunk(ctx, chainId, chunk);
    const batch: { intent: OperatorTxRow; gasLimit: bigint }[] = [];
    let stalled: { intent: OperatorTxRow; err: unknown } | null = null;
    for (const [j, intent] of chunk.entries()) {
      const sim = sims[j]!;
      if (sim.status === 'rejected') {
        stalled = { intent, err: sim.reason };
        break;
      }
      const refusal = !sim.value.ok ? sim.value.error : sim.value.gasLimit > maxGasOf(ctx, intent) ? 'gas_limit_exceeded' : null;
      if (sim.value.ok && refusal === null) batch.push({ intent, gasLimit: sim.value.gasLimit });
      else await deliverOutcome(ctx, intent, 'queued', 'rejected', refusal).then(() => moved++, (err) => (stalled = { intent, err }));
      if (stalled) break;
    }
    try {
      if (batch.length > 0) {
        pass ??= { nonce: await nextNonce(ctx, chainId), fees: await currentFees(client, ctx.options.maxFeePerGas) };
        moved += await sendBatch(ctx, chainId, batch, pass);
      }
    } catch (err) {
      stalled = { intent: batch[0]!.intent, err };
    }
    if (stalled) {
      ctx.logger.warn({ operator_tx_id: stalled.intent.id, purpose: stalled.intent.purpose, err: describeError(stalled.err) }, 'operator transaction not sent yet; will retry');
      return moved;
    }
  }
  return moved;
}

/**
 * The most gas an intent may be signed with. The relayer's: the limit its owner recorded (the relay's submit
 * simulation), at most RELAYER_GAS_LIMIT. The operator's calls are the service's own: the simulation's limit.
 */
function maxGasOf(ctx: SenderContext, intent: OperatorTxRow): bigint {
  const ceiling = gasCeilingOf(ctx);
  if (ceiling === null) return 2n ** 64n;
  return intent.gas_limit !== null && intent.gas_limit < ceiling ? intent.gas_limit : ceiling;
}

/**
 * The chunk's simulations, in order, SIMULATE_AT_ONCE at a time, each just before its intent is signed and
 * broadcast. The relayer's run on the pending block (the node's pool included) with at most RELAYER_GAS_LIMIT.
 */
async function simulateChunk(ctx: SenderContext, chainId: number, chunk: OperatorTxRow[]): Promise<PromiseSettledResult<Simulation>[]> {
  const client = ctx.chains.get(chainId).publicClient;
  const ceiling = gasCeilingOf(ctx);
  const opts = ceiling === null ? {} : { blockTag: 'pending' as const, gas: ceiling };
  const out: PromiseSettledResult<Simulation>[] = [];
  for (let i = 0; i < chunk.length; i += SIMULATE_AT_ONCE) {
    out.push(...(await Promise.allSettled(chunk.slice(i, i + SIMULATE_AT_ONCE).map((t) => simulate(client, ctx.account, t.to_address as Hex, t.calldata as Hex, opts)))));
  }
  return out;
}

/** The nonce after the last one recorded for this sender, or the chain's count if that is higher. */
async function nextNonce(ctx: SenderContext, chainId: number): Promise<bigint> {
  const lease = await operatorTxsRepo.lease(ctx.db, chainId, ctx.account.address);
  const onChain = BigInt(await ctx.chains.get(chainId).publicClient.getTransactionCount({ address: ctx.account.address, blockTag: 'latest' }));
  const recorded = lease?.next_nonce ?? 0n;
  return recorded > onChain ? recorded : onChain;
}

/**
 * Signs the batch with the pass's next nonces, records them all in ONE transaction (committed), counts the
 * nonce up, then broadcasts them concurrently (a node holds a higher nonce until the gap is filled) and marks
 * the accepted ones sent in one statement.
 */
async function sendBatch(ctx: SenderContext, chainId: number, batch: { intent: OperatorTxRow; gasLimit: bigint }[], pass: Pass): Promise<number> {
  const { fees } = pass;
  const signed: { id: string; record: { nonce: bigint; hash: Hex; raw: Hex; gasLimit: bigint; maxFee: bigint; maxPriority: bigint } }[] = [];
  for (const [k, { intent, gasLimit }] of batch.entries()) {
    const nonce = pass.nonce + BigInt(k);
    const f = capFees(fees, intent.max_fee_cap);
    const s = await signOperatorTx(ctx.account, { chainId, to: intent.to_address as Hex, data: intent.calldata as Hex, nonce, gas: gasLimit, fees: f }, gasCeilingOf(ctx));
    signed.push({ id: intent.id, record: { nonce, hash: s.hash, raw: s.raw, gasLimit, maxFee: f.maxFeePerGas, maxPriority: f.maxPriorityFeePerGas } });
  }
  const rows = await ctx.db.transaction().execute((tx) =>
    operatorTxsRepo.recordSignedMany(tx, ctx.account.address, ctx.holder, chainId, signed.map((s) => ({ id: s.id, s: s.record }))));
  pass.nonce += BigInt(batch.length);
  for (let k = 0; k < rows.length; k++) afterRecord(ctx);
  const sent = await Promise.all(rows.map((row, k) => broadcastOnly(ctx, chainId, row, signed[k]!.record.raw)));
  await operatorTxsRepo.markSent(ctx.db, rows.filter((_, k) => sent[k]).map((r) => r.id));
  return rows.length;
}

/** Broadcasts a recorded raw transaction and notes it; a failure leaves it recorded for the monitor to retry. */
export async function broadcastRecorded(ctx: SenderContext, chainId: number, row: OperatorTxRow, raw: Hex): Promise<void> {
  if (await broadcastOnly(ctx, chainId, row, raw)) await operatorTxsRepo.markSent(ctx.db, [row.id]);
}

/** eth_sendRawTransaction of a recorded transaction; whether the node has it now (the caller marks it sent). */
async function broadcastOnly(ctx: SenderContext, chainId: number, row: OperatorTxRow, raw: Hex): Promise<boolean> {
  const r = await broadcast(ctx.chains.get(chainId).publicClient, raw);
  if (r.result === 'failed') {
    ctx.logger.warn({ operator_tx_id: row.id, nonce: row.nonce?.toString(), err: r.error }, 'broadcast failed; the recorded transaction will be sent again');
    return false;
  }
  ctx.logger.info({ operator_tx_id: row.id, purpose: row.purpose, nonce: row.nonce?.toString(), tx_hash: row.tx_hash, result: r.result }, 'operator transaction broadcast');
  return true;
}
