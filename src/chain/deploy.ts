/**
 * Deploys the router, the SubscriptionManager and the DepositFactory (committed artifacts) and the devnet/test USDC (Circle's, circle-usdc.ts), waiting for receipts.
 * Transactions from one account may be sent back to back with explicit nonces so a
 * devnet with 1-second blocks is set up in a couple of blocks rather than one block per transaction.
 */
import { getAddress, getContractAddress, type Address, type Hash, type Hex } from 'viem';
import { paymentRouterAbi, paymentRouterBytecode } from './artifacts/PaymentRouter.js';
import { depositFactoryAbi, depositFactoryBytecode } from './artifacts/DepositFactory.js';
import { subscriptionManagerAbi, subscriptionManagerBytecode } from './artifacts/SubscriptionManager.js';
import { awaitAll, sendCircleUsdcDeployment, sendCircleUsdcMints, type CircleRoles } from './circle-usdc.js';
import type { ChainPublicClient, ChainWalletClient } from './clients.js';

export type DeployClients = { walletClient: ChainWalletClient; publicClient: ChainPublicClient };

export type DeployRouterParams = DeployClients & {
  owner: Address;
  signer: Address;
  operator: Address;
  treasury: Address;
  /** Reserve hold the router records on every payment (seconds); default 7 days. */
  reserveHoldSeconds?: bigint;
  nonce?: number;
  confirmations?: number;
};

export const DEFAULT_RESERVE_HOLD_SECONDS = 7n * 86_400n;

async function contractAddressOf(
  publicClient: ChainPublicClient,
  hash: Hash,
  what: string,
  confirmations = 1,
): Promise<Address> {
  const receipt = await publicClient.waitForTransactionReceipt({ hash, confirmations, timeout: 120_000 });
  if (receipt.status !== 'success' || !receipt.contractAddress) {
    throw new Error(`${what} deployment failed (tx ${hash}, status ${receipt.status})`);
  }
  return getAddress(receipt.contractAddress);
}

export async function deployRouter(p: DeployRouterParams): Promise<Address> {
  const hash = await p.walletClient.deployContract({
    abi: paymentRouterAbi,
    bytecode: paymentRouterBytecode,
    args: [p.owner, p.signer, p.operator, p.treasury, p.reserveHoldSeconds ?? DEFAULT_RESERVE_HOLD_SECONDS],
    nonce: p.nonce,
  });
  return contractAddressOf(p.publicClient, hash, 'PaymentRouter', p.confirmations);
}

/** Sends the SubscriptionManager's deployment for `router` (its constructor reads nothing, so the router need not
 *  be mined yet); returns the transaction hash. */
export function sendSubscriptionManagerDeployment(p: DeployClients & { router: Address; nonce?: number }): Promise<Hash> {
  return p.walletClient.deployContract({ abi: subscriptionManagerAbi, bytecode: subscriptionManagerBytecode, args: [p.router], nonce: p.nonce });
}

export async function deploySubscriptionManager(p: DeployClients & { router: Address; nonce?: number; confirmations?: number }): Promise<Address> {
  return contractAddressOf(p.publicClient, await sendSubscriptionManagerDeployment(p), 'SubscriptionManager', p.confirmations);
}

/** Sends the DepositFactory's deployment for `router` (its constructor only creates the forwarder implementation). */
export function sendDepositFactoryDeployment(p: DeployClients & { router: Address; nonce?: number }): Promise<Hash> {
  return p.walletClient.deployContract({ abi: depositFactoryAbi, bytecode: depositFactoryBytecode, args: [p.router], nonce: p.nonce });
}

export async function deployDepositFactory(p: DeployClients & { router: Address; nonce?: number; confirmations?: number }): Promise<Address> {
  return contractAddressOf(p.publicClient, await sendDepositFactoryDeployment(p), 'DepositFactory', p.confirmations);
}

/** The router's owner (the wallet's account) registers `module` with setModule(module, true). Fixed gas, so it can be
 *  sent before the module's deployment is mined. */
export function sendRegisterModule(p: DeployClients & { router: Address; module: Address; nonce?: number }): Promise<Hash> {
  return p.walletClient.writeContract({ address: p.router, abi: paymentRouterAbi, functionName: 'setModule', args: [p.module, true], gas: 100_000n, nonce: p.nonce });
}

/**
 * Devnet / test setup in a few blocks: Circle's USDC (circle-usdc.ts) and the router deployed back to back
 * (consecutive nonces, fixed gas), then `usdcEach` minted to every buyer by the wallet's account, which owns
 * the router and the token and is the token's master minter and minter; then the SubscriptionManager, which the
 * owner registers on the router with setModule, and the DepositFactory (deposit addresses). `roles`: the token's proxy admin,
 * pauser, blacklister and lost-and-found (the proxy admin must be another account).
 */
export async function deployDevStack(
  p: DeployClients & {
    signer: Address; operator: Address; treasury: Address; buyers: readonly Address[]; usdcEach: bigint; reserveHoldSeconds?: bigint; roles: CircleRoles;
  },
): Promise<{ usdc: Address; router: Address; subscriptionManager: Address; depositFactory: Address }> {
  const owner = p.walletClient.account.address;
  const nonce = await p.publicClient.getTransactionCount({ address: owner, blockTag: 'pending' });
  const sent = await sendCircleUsdcDeployment(p.walletClient, p.roles, nonce);
  const mints = await sendCircleUsdcMints(p.walletClient, sent.usdc, p.buyers, p.usdcEach, sent.nextNonce);
  const routerNonce = sent.nextNonce + p.buyers.length;
  const router = await deployRouter({ ...p, owner, nonce: routerNonce });
  const subscriptionManager = getContractAddress({ from: owner, nonce: BigInt(routerNonce + 1) });
  const managerHash = await sendSubscriptionManagerDeployment({ ...p, router, nonce: routerNonce + 1 });
  const registered = await sendRegisterModule({ ...p, router, module: subscriptionManager, nonce: routerNonce + 2 });
  const depositFactory = getContractAddress({ from: owner, nonce: BigInt(routerNonce + 3) });
  const factoryHash = await sendDepositFactoryDeployment({ ...p, router, nonce: routerNonce + 3 });
  await awaitAll(p.publicClient, sent.hashes, 'USDC deployment');
  await awaitAll(p.publicClient, mints, 'USDC mint');
  if ((await contractAddressOf(p.publicClient, managerHash, 'SubscriptionManager')) !== subscriptionManager) {
    throw new Error('SubscriptionManager deployed at an unexpected address');
  }
  await awaitAll(p.publicClient, [registered], 'setModule(SubscriptionManager)');
  if ((await contractAddressOf(p.publicClient, factoryHash, 'DepositFactory')) !== depositFactory) throw new Error('DepositFactory deployed at an unexpected address');
  return { usdc: sent.usdc, router, subscriptionManager, depositFactory };
}

/**
 * Whether deployed runtime `code` was compiled from the same sources and settings as creation `bytecode`: solc ends
 * the runtime code with its CBOR metadata (the IPFS hash of the metadata, which covers every source file and setting;
 * its length in the last two bytes), and the creation bytecode holds that runtime code. Searched, not compared at the
 * end: the router's creation code carries the ArrivalVerifier's creation code after its own runtime (it deploys it in
 * its constructor). Immutables (the EIP-712 domain's cached values, the verifier's address) differ per deployment and
 * are not compared.
 */
export function runsArtifact(code: Hex, bytecode: Hex): boolean {
  const trailer = code.length >= 6 ? (parseInt(code.slice(-4), 16) + 2) * 2 : 0;
  if (trailer <= 4 || trailer > code.length - 2) return false;
  return bytecode.toLowerCase().includes(code.slice(-trailer).toLowerCase());
}
