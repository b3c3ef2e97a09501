import {
  concat,
  createWalletClient,
  encodeFunctionData,
  encodePacked,
  hashMessage,
  hashTypedData,
  http,
  numberToHex,
  pad,
  size,
  zeroAddress,
  type Address,
  type Hex,
  type LocalAccount,
  type PublicClient,
  type TypedDataDefinition,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { deploySafeStackWith, SAFE_ARTIFACTS, safeInitializer, type SafeArtifact } from '../../helpers/safe.js';

/**
 * A real smart account for the browser tests: Safe 1.5.0 from @safe-global/safe-smart-account's compiled
 * artifacts (singleton, proxy factory, CompatibilityFallbackHandler for ERC-1271, MultiSendCallOnly for
 * atomic batches), deployed on the e2e devnet as-is, one owner (a dev EOA that also pays the gas).
 */
const { SAFE, FACTORY, MULTISEND } = SAFE_ARTIFACTS;

export type SafeAccount = { address: Address; owner: LocalAccount; multiSend: Address; chainId: number };
export type Call = { to: Address; data?: Hex; value?: bigint };

/** Deploys the Safe contracts and one Safe owned by `ownerKey` (which pays for all of it). */
export async function deploySafeAccount(publicClient: PublicClient, rpcUrl: string, ownerKey: Hex): Promise<SafeAccount> {
  const owner = privateKeyToAccount(ownerKey);
  const chain = publicClient.chain!;
  const wallet = createWalletClient({ account: owner, chain, transport: http(rpcUrl) });
  const send = async (a: SafeArtifact) => publicClient.waitForTransactionReceipt({ hash: await wallet.deployContract({ abi: a.abi, bytecode: a.bytecode, args: [] }) });
  const stack = await deploySafeStackWith(send, owner);
  const multiSend = (await send(MULTISEND)).contractAddress;
  if (!multiSend) throw new Error('no contract address');
  const args = [stack.singleton, safeInitializer(stack, [owner.address]), BigInt(Date.now())] as const;
  const { result, request } = await publicClient.simulateContract({ account: owner, address: stack.factory, abi: FACTORY.abi, functionName: 'createProxyWithNonce', args });
  await publicClient.waitForTransactionReceipt({ hash: await wallet.writeContract(request) });
  return { address: result as Address, owner, multiSend, chainId: chain.id };
}

/**
 * The owner's signature that makes the Safe's ERC-1271 isValidSignature(hash, sig) accept `hash`: the
 * CompatibilityFallbackHandler checks the owner signed SafeMessage{message: abi.encode(hash)} in the Safe's
 * domain. 65 bytes, but valid only through the account, never by ecrecover to the Safe's address.
 */
export function signAsSafe(safe: SafeAccount, hash: Hex): Promise<Hex> {
  return safe.owner.signTypedData!({
    domain: { chainId: safe.chainId, verifyingContract: safe.address },
    types: { SafeMessage: [{ name: 'message', type: 'bytes' }] },
    primaryType: 'SafeMessage',
    message: { message: hash },
  });
}

export const safeSignTypedData = (safe: SafeAccount, typed: TypedDataDefinition) => signAsSafe(safe, hashTypedData(typed));
export const safePersonalSign = (safe: SafeAccount, raw: Hex) => signAsSafe(safe, hashMessage({ raw }));

/**
 * execTransaction calldata running `calls` from the Safe: one call directly, several atomically through
 * MultiSendCallOnly (delegatecall). The owner sends it, so its "approved by msg.sender" signature
 * (r = owner, s = 0, v = 1) is enough and the owner pays the gas.
 */
export function execTransactionData(safe: SafeAccount, calls: Call[]): Hex {
  const single = calls.length === 1 ? calls[0]! : null;
  const packed = concat(calls.map((c) => encodePacked(['uint8', 'address', 'uint256', 'uint256', 'bytes'], [0, c.to, c.value ?? 0n, BigInt(size(c.data ?? '0x')), c.data ?? '0x'])));
  const [to, value, data, operation] = single
    ? [single.to, single.value ?? 0n, single.data ?? '0x', 0]
    : [safe.multiSend, 0n, encodeFunctionData({ abi: MULTISEND.abi, functionName: 'multiSend', args: [packed] }), 1];
  const approvedBySender = concat([pad(safe.owner.address, { size: 32 }), pad('0x', { size: 32 }), numberToHex(1, { size: 1 })]);
  return encodeFunctionData({
    abi: SAFE.abi,
    functionName: 'execTransaction',
    args: [to, value, data, operation, 0n, 0n, 0n, zeroAddress, zeroAddress, approvedBySender],
  });
}
