import type { PublicClient } from 'viem';

export type Fees = { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };

/** A replacement must outbid the transaction it replaces; nodes ask for ≥ 10 % on both fields. */
export const FEE_BUMP_PERCENT = 15n;

const bounded = (f: Fees, cap: bigint): Fees => {
  const maxFeePerGas = f.maxFeePerGas > cap ? cap : f.maxFeePerGas;
  const maxPriorityFeePerGas = f.maxPriorityFeePerGas > maxFeePerGas ? maxFeePerGas : f.maxPriorityFeePerGas;
  return { maxFeePerGas, maxPriorityFeePerGas };
};

/** `fees` under an intent's own cap (wei per gas, numeric text; null: none). */
export const capFees = (fees: Fees, cap: string | null): Fees => (cap === null ? fees : bounded(fees, BigInt(cap)));

/** EIP-1559 fees as the node suggests them, never above `cap`. */
export async function currentFees(client: PublicClient, cap: bigint): Promise<Fees> {
  const f = await client.estimateFeesPerGas({ type: 'eip1559', chain: null });
  return bounded({ maxFeePerGas: f.maxFeePerGas, maxPriorityFeePerGas: f.maxPriorityFeePerGas }, cap);
}

/**
 * Fees for a replacement: at least FEE_BUMP_PERCENT over the previous ones on both fields (and at least
 * what the node asks now). null when that would go over `cap`: the transaction is then only re-broadcast.
 */
export async function bumpedFees(client: PublicClient, previous: Fees, cap: bigint): Promise<Fees | null> {
  const now = await currentFees(client, cap);
  const bump = (v: bigint) => (v * (100n + FEE_BUMP_PERCENT)) / 100n + 1n;
  const maxPriorityFeePerGas = now.maxPriorityFeePerGas > bump(previous.maxPriorityFeePerGas) ? now.maxPriorityFeePerGas : bump(previous.maxPriorityFeePerGas);
  const wantMax = now.maxFeePerGas > bump(previous.maxFeePerGas) ? now.maxFeePerGas : bump(previous.maxFeePerGas);
  const maxFeePerGas = wantMax > maxPriorityFeePerGas ? wantMax : maxPriorityFeePerGas;
  if (maxFeePerGas > cap) return null;
  return { maxFeePerGas, maxPriorityFeePerGas };
}
