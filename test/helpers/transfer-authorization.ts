import { parseAbi, type Address, type Hex, type LocalAccount } from 'viem';
import { generatePrivateKey } from 'viem/accounts';
import type { TestChain } from './chain.js';

export const usdc3009 = parseAbi([
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)',
  'function cancelAuthorization(address authorizer, bytes32 nonce, bytes signature)',
  'function name() view returns (string)',
  'function version() view returns (string)',
]);

const TRANSFER_TYPES = { TransferWithAuthorization: [
  { name: 'from', type: 'address' }, { name: 'to', type: 'address' }, { name: 'value', type: 'uint256' },
  { name: 'validAfter', type: 'uint256' }, { name: 'validBefore', type: 'uint256' }, { name: 'nonce', type: 'bytes32' },
] } as const;
const CANCEL_TYPES = { CancelAuthorization: [{ name: 'authorizer', type: 'address' }, { name: 'nonce', type: 'bytes32' }] } as const;

async function domainOf(chain: TestChain) {
  const read = (functionName: 'name' | 'version') => chain.publicClient.readContract({ address: chain.usdc, abi: usdc3009, functionName });
  return { name: await read('name'), version: await read('version'), chainId: chain.chainId, verifyingContract: chain.usdc };
}

export type SignedTransfer = { from: Address; to: Address; value: bigint; validAfter: bigint; validBefore: bigint; nonce: Hex; signature: Hex };

/** `from`'s ERC-3009 TransferWithAuthorization, signed in the token's own domain (a random nonce unless given). */
export async function signTransfer(chain: TestChain, from: LocalAccount, m: { to: Address; value: bigint; validBefore?: bigint; nonce?: Hex }): Promise<SignedTransfer> {
  const message = { from: from.address, to: m.to, value: m.value, validAfter: 0n, validBefore: m.validBefore ?? 2n ** 48n, nonce: m.nonce ?? generatePrivateKey() };
  const signature = await from.signTypedData({ domain: await domainOf(chain), types: TRANSFER_TYPES, primaryType: 'TransferWithAuthorization', message });
  return { ...message, signature };
}

/** Submits a signed transfer to the token directly from `by` (a third party, no router call); returns the hash. */
export const submitTransfer = (chain: TestChain, by: LocalAccount, t: SignedTransfer, opts: { gas?: bigint } = {}) =>
  chain.walletClientFor(by).writeContract({ address: chain.usdc, abi: usdc3009, functionName: 'transferWithAuthorization', args: [t.from, t.to, t.value, t.validAfter, t.validBefore, t.nonce, t.signature], ...opts });

/** `authorizer` cancels its own authorization `nonce` at the token (sent by `authorizer`). */
export async function cancelAuthorization(chain: TestChain, authorizer: LocalAccount, nonce: Hex, opts: { gas?: bigint; maxFeePerGas?: bigint; maxPriorityFeePerGas?: bigint } = {}) {
  const signature = await authorizer.signTypedData({ domain: await domainOf(chain), types: CANCEL_TYPES, primaryType: 'CancelAuthorization', message: { authorizer: authorizer.address, nonce } });
  return chain.walletClientFor(authorizer).writeContract({ address: chain.usdc, abi: usdc3009, functionName: 'cancelAuthorization', args: [authorizer.address, nonce, signature], ...opts });
}
