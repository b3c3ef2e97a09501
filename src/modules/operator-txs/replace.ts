import type { Hex } from 'viem';
import type { SenderContext } from './context.js';
import { bumpedFees } from './fees.js';
import { operatorTxsRepo, type OperatorTxRow } from './repo.js';
import { broadcastRecorded } from './send-queued.js';
import { gasCeilingOf, signOperatorTx } from './sign.js';

/**
 * A transaction stuck past replaceMs: the same call, same nonce, fees bumped (≥ FEE_BUMP_PERCENT). The new
 * attempt is recorded before it is broadcast; every hash stays recorded, and whichever is mined is the
 * outcome. At the fee cap it is only re-broadcast.
 */
export async function replaceStuck(ctx: SenderContext, row: OperatorTxRow): Promise<void> {
  const client = ctx.chains.get(row.chain_id).publicClient;
  // Never above the sender's cap, nor the intent's own (a relay's reservation of the relayer's day).
  const own = row.max_fee_cap === null ? null : BigInt(row.max_fee_cap);
  const cap = own !== null && own < ctx.options.maxFeePerGas ? own : ctx.options.maxFeePerGas;
  const fees = await bumpedFees(client, { maxFeePerGas: BigInt(row.max_fee_per_gas ?? '0'), maxPriorityFeePerGas: BigInt(row.max_priority_fee_per_gas ?? '0') }, cap);
  if (!fees) {
    ctx.logger.warn({ operator_tx_id: row.id, nonce: row.nonce?.toString() }, 'stuck operator transaction already at the fee cap; re-broadcasting it');
    return broadcastRecorded(ctx, row.chain_id, row, row.raw_tx as Hex);
  }
  const nonce = row.nonce!;
  const gas = row.gas_limit!;
  const signed = await signOperatorTx(ctx.account, { chainId: row.chain_id, to: row.to_address as Hex, data: row.calldata as Hex, nonce, gas, fees }, gasCeilingOf(ctx));
  const updated = await ctx.db.transaction().execute((tx) => operatorTxsRepo.recordSigned(tx, row.id, ctx.account.address, ctx.holder, row.chain_id, {
    nonce, hash: signed.hash, raw: signed.raw, gasLimit: gas, maxFee: fees.maxFeePerGas, maxPriority: fees.maxPriorityFeePerGas,
  }));
  ctx.logger.warn({ operator_tx_id: row.id, nonce: nonce.toString(), tx_hash: signed.hash, max_fee_per_gas: fees.maxFeePerGas.toString() }, 'replacing a stuck operator transaction');
  await broadcastRecorded(ctx, row.chain_id, updated, signed.raw);
}
