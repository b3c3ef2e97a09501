/**
 * Deploys the router and the devnet/test USDC from the committed artifacts, waiting for receipts.
 * Transactions from one account may be sent back to back with explicit nonces (see fundTestUsdc) so a
 * devnet with 1-second blocks is set up in a couple of blocks rather than one block per transaction.
 */
import { getAddress, type Address, type Hash } from 'viem';
import { paymentRouterAbi, paymentRouterBytecode } from './artifacts/PaymentRouter.js';
import { testUsdcAbi, testUsdcBytecode } from './artifacts/TestUSDC.js';
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

/** TestUSDC (6 decimals, EIP-2612). Devnet and tests only: real networks use Circle's USDC. */
export async function deployTestUsdc(p: DeployClients & { owner: Address; nonce?: number }): Promise<Address> {
  const hash = await p.walletClient.deployContract({
    abi: testUsdcAbi,
    bytecode: testUsdcBytecode,
    args: [p.owner],
    nonce: p.nonce,
  });
  return contractAddressOf(p.publicClient, hash, 'TestUSDC');
}

/** Mints `amount` (base units) to each recipient; the wallet must be the TestUSDC owner. */
export async function fundTestUsdc(
  p: DeployClients & { usdc: Address; recipients: readonly Address[]; amount: bigint },
): Promise<void> {
  const from = p.walletClient.account.address;
  let nonce = await p.publicClient.getTransactionCount({ address: from, blockTag: 'pending' });
  const hashes: Hash[] = [];
  for (const to of p.recipients) {
    hashes.push(
      await p.walletClient.writeContract({
        address: p.usdc,
        abi: testUsdcAbi,
        functionName: 'mint',
        args: [to, p.amount],
        nonce: nonce++,
        gas: 100_000n, // fixed: estimating against a block that lacks the earlier mints is pointless
      }),
    );
  }
  for (const hash of hashes) {
    const receipt = await p.publicClient.waitForTransactionReceipt({ hash, timeout: 120_000 });
    if (receipt.status !== 'success') throw new Error(`TestUSDC mint failed (tx ${hash})`);
  }
}

/**
 * Devnet / test setup in a few blocks: TestUSDC and the router deployed back to back (consecutive nonces),
 * then `usdcEach` minted to every buyer. The wallet's account owns both contracts.
 */
export async function deployDevStack(
  p: DeployClients & { signer: Address; operator: Address; treasury: Address; buyers: readonly Address[]; usdcEach: bigint; reserveHoldSeconds?: bigint },
): Promise<{ usdc: Address; router: Address }> {
  const owner = p.walletClient.account.address;
  const nonce = await p.publicClient.getTransactionCount({ address: owner, blockTag: 'pending' });
  const [usdc, router] = await Promise.all([
    deployTestUsdc({ ...p, owner, nonce }),
    deployRouter({ ...p, owner, nonce: nonce + 1 }),
  ]);
  await fundTestUsdc({ ...p, usdc, recipients: p.buyers, amount: p.usdcEach });
  return { usdc, router };
}
