import { createRequire } from 'node:module';
import {
  concat,
  encodeFunctionData,
  encodePacked,
  getContractAddress,
  hashMessage,
  keccak256,
  pad,
  zeroAddress,
  type Abi,
  type Address,
  type Hex,
  type LocalAccount,
} from 'viem';
import type { TestChain } from './chain.js';

/**
 * Safe{Wallet} contracts from @safe-global/safe-smart-account's own compiled artifacts (exact-pinned
 * devDependency), deployed as-is on anvil: the singleton, the proxy factory and the
 * CompatibilityFallbackHandler that gives a Safe its ERC-1271 `isValidSignature(bytes32,bytes)`.
 */
const require = createRequire(import.meta.url);
const ARTIFACTS = '@safe-global/safe-smart-account/build/artifacts/contracts';
export type SafeArtifact = { abi: Abi; bytecode: Hex };
const artifact = (path: string) => require(`${ARTIFACTS}/${path}`) as SafeArtifact;
const SAFE = artifact('Safe.sol/Safe.json');
const FACTORY = artifact('proxies/SafeProxyFactory.sol/SafeProxyFactory.json');
const FALLBACK = artifact('handler/CompatibilityFallbackHandler.sol/CompatibilityFallbackHandler.json');
/** The compiled Safe contracts the tests deploy (MultiSendCallOnly: the browser wallet's atomic batches). */
export const SAFE_ARTIFACTS = { SAFE, FACTORY, FALLBACK, MULTISEND: artifact('libraries/MultiSendCallOnly.sol/MultiSendCallOnly.json') };

export type SafeStack = { singleton: Address; factory: Address; fallbackHandler: Address; deployer: LocalAccount };

export async function deploySafeStack(chain: TestChain): Promise<SafeStack> {
  const wallet = chain.walletClientFor(chain.owner);
  return deploySafeStackWith(async (a) => chain.confirm(await wallet.deployContract({ abi: a.abi, bytecode: a.bytecode, args: [] })), chain.owner);
}

/** The singleton, factory and fallback handler, each deployed by `send` (which waits for its receipt). */
export async function deploySafeStackWith(send: (a: SafeArtifact) => Promise<{ contractAddress?: Address | null }>, deployer: LocalAccount): Promise<SafeStack> {
  const deploy = async (a: SafeArtifact) => {
    const { contractAddress } = await send(a);
    if (!contractAddress) throw new Error('no contract address');
    return contractAddress;
  };
  return { singleton: await deploy(SAFE), factory: await deploy(FACTORY), fallbackHandler: await deploy(FALLBACK), deployer };
}

/** `Safe.setup` calldata: `owners` with `threshold`, the CompatibilityFallbackHandler, no payment. */
export function safeInitializer(stack: SafeStack, owners: Address[], threshold = 1): Hex {
  return encodeFunctionData({
    abi: SAFE.abi,
    functionName: 'setup',
    args: [owners, BigInt(threshold), zeroAddress, '0x', stack.fallbackHandler, zeroAddress, 0n, zeroAddress],
  });
}

/** The factory call that deploys this Safe: what an ERC-6492 signature carries as factory calldata. */
export function createSafeCalldata(stack: SafeStack, initializer: Hex, saltNonce: bigint): Hex {
  return encodeFunctionData({ abi: FACTORY.abi, functionName: 'createProxyWithNonce', args: [stack.singleton, initializer, saltNonce] });
}

/**
 * The Safe's address before it exists: CREATE2 by the factory with salt keccak256(keccak256(initializer) ‖
 * saltNonce) over the proxy creation code followed by the singleton as uint256 (SafeProxyFactory.deployProxy).
 */
export async function predictSafeAddress(chain: TestChain, stack: SafeStack, initializer: Hex, saltNonce: bigint): Promise<Address> {
  const creationCode = (await chain.publicClient.readContract({ address: stack.factory, abi: FACTORY.abi, functionName: 'proxyCreationCode' })) as Hex;
  const salt = keccak256(encodePacked(['bytes32', 'uint256'], [keccak256(initializer), saltNonce]));
  return getContractAddress({ opcode: 'CREATE2', from: stack.factory, salt, bytecode: concat([creationCode, pad(stack.singleton, { size: 32 })]) });
}

/** Deploys a Safe through the factory and returns its (predicted, then checked) address. */
export async function deploySafe(chain: TestChain, stack: SafeStack, owners: Address[], saltNonce: bigint): Promise<Address> {
  const initializer = safeInitializer(stack, owners);
  const address = await predictSafeAddress(chain, stack, initializer, saltNonce);
  const hash = await chain.walletClientFor(stack.deployer).sendTransaction({ to: stack.factory, data: createSafeCalldata(stack, initializer, saltNonce) });
  await chain.confirm(hash);
  if (!(await isDeployed(chain, address))) throw new Error(`Safe not deployed at the predicted ${address}`);
  return address;
}

export async function isDeployed(chain: TestChain, address: Address): Promise<boolean> {
  const code = await chain.publicClient.getCode({ address });
  return code !== undefined && code !== '0x';
}

export async function safeOwners(chain: TestChain, safe: Address): Promise<readonly Address[]> {
  return (await chain.publicClient.readContract({ address: safe, abi: SAFE.abi, functionName: 'getOwners' })) as readonly Address[];
}

/**
 * An owner's signature for the Safe's ERC-1271 check of an EIP-191 text: CompatibilityFallbackHandler's
 * `isValidSignature(hash, sig)` runs `checkSignatures` over the EIP-712 SafeMessage{message: abi.encode(hash)}
 * in the Safe's domain {chainId, verifyingContract}, so the owner signs that typed data (65 bytes, v 27/28).
 */
export function signSafeMessage(owner: LocalAccount, safe: Address, chainId: number, text: string): Promise<Hex> {
  if (!owner.signTypedData) throw new Error('owner cannot sign typed data');
  return owner.signTypedData({
    domain: { chainId, verifyingContract: safe },
    types: { SafeMessage: [{ name: 'message', type: 'bytes' }] },
    primaryType: 'SafeMessage',
    message: { message: hashMessage(text) },
  });
}

/**
 * An owner's signature that the Safe's ERC-1271 `isValidSignature(bytes32 hash, sig)` accepts for any 32-byte
 * `hash` (e.g. an EIP-712 digest such as USDC's ReceiveWithAuthorization): SafeMessage{message: hash} in the
 * Safe's domain, as the CompatibilityFallbackHandler checks it.
 */
export function signSafeHash(owner: LocalAccount, safe: Address, chainId: number, hash: Hex): Promise<Hex> {
  if (!owner.signTypedData) throw new Error('owner cannot sign typed data');
  return owner.signTypedData({
    domain: { chainId, verifyingContract: safe },
    types: { SafeMessage: [{ name: 'message', type: 'bytes' }] },
    primaryType: 'SafeMessage',
    message: { message: hash },
  });
}
