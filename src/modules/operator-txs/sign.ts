import { keccak256, type Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import type { Fees } from './fees.js';

export type Signed = { raw: Hex; hash: Hex };

/** Signs locally (no node involved): an EIP-1559 transaction with the given nonce, gas and fees. */
export async function signOperatorTx(account: PrivateKeyAccount, p: { chainId: number; to: Hex; data: Hex; nonce: bigint; gas: bigint; fees: Fees }): Promise<Signed> {
  const raw = await account.signTransaction({
    type: 'eip1559', chainId: p.chainId, to: p.to, data: p.data, nonce: Number(p.nonce), gas: p.gas, value: 0n,
    maxFeePerGas: p.fees.maxFeePerGas, maxPriorityFeePerGas: p.fees.maxPriorityFeePerGas,
  });
  return { raw, hash: keccak256(raw) };
}
