import { keccak256, type Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { SenderContext } from './context.js';
import type { Fees } from './fees.js';

export type Signed = { raw: Hex; hash: Hex };

/** RELAYER_GAS_LIMIT for the relayer's sender; null for the operator's (its calls are the service's own). */
export const gasCeilingOf = (ctx: Pick<SenderContext, 'keyRole' | 'options'>): bigint | null => (ctx.keyRole === 'relayer' ? ctx.options.relayerGasLimit : null);

/**
 * Signs locally (no node involved): an EIP-1559 transaction with the given nonce, gas and fees. Refuses (throws,
 * nothing signed) a gas limit above `maxGas`: the relayer's key never signs one above RELAYER_GAS_LIMIT.
 */
export async function signOperatorTx(account: PrivateKeyAccount, p: { chainId: number; to: Hex; data: Hex; nonce: bigint; gas: bigint; fees: Fees }, maxGas: bigint | null = null): Promise<Signed> {
  if (maxGas !== null && p.gas > maxGas) throw new Error(`refusing to sign a transaction with gas ${p.gas} above the ceiling ${maxGas}`);
  const raw = await account.signTransaction({
    type: 'eip1559', chainId: p.chainId, to: p.to, data: p.data, nonce: Number(p.nonce), gas: p.gas, value: 0n,
    maxFeePerGas: p.fees.maxFeePerGas, maxPriorityFeePerGas: p.fees.maxPriorityFeePerGas,
  });
  return { raw, hash: keccak256(raw) };
}
