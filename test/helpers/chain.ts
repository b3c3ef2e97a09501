/**
 * A throwaway chain for tests: its own anvil on a free port (no state file), Circle's USDC (FiatTokenV2_2
 * behind its proxy, src/chain/circle-usdc.ts) and the PaymentRouter deployed with fresh keys, buyers funded. Files can run in parallel: nothing is shared.
 */
import { BaseError, ContractFunctionRevertedError, type Address, type Hash, type LocalAccount, type TransactionReceipt } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startAnvil } from '../../src/chain/anvil.js';
import {
  DEVNET_CHAIN_ID,
  makeAnvilClient,
  makePublicClient,
  makeWalletClient,
  type AnvilTestClient,
  type ChainPublicClient,
  type ChainWalletClient,
} from '../../src/chain/clients.js';
import { paymentRouterAbi } from '../../src/chain/artifacts/PaymentRouter.js';
import { circleUsdcAbi } from '../../src/chain/circle-usdc.js';
import { deployDevStack } from '../../src/chain/deploy.js';

export type TestChain = {
  rpcUrl: string;
  chainId: number;
  usdc: Address;
  router: Address;
  /** The router's registered SubscriptionManager module. */
  subscriptionManager: Address;
  /** The DepositFactory (deposit addresses). */
  depositFactory: Address;
  /** Service signer (authorised on the router). */
  signer: LocalAccount;
  operator: LocalAccount;
  /** Owner of the router and of the USDC (its master minter and minter). */
  owner: LocalAccount;
  /** The USDC's pauser and blacklister (Circle's roles; funded with ETH). */
  usdcPauser: LocalAccount;
  usdcBlacklister: LocalAccount;
  /** Mints `amount` USDC base units to `to` (the owner is the minter) and waits for it. */
  fundUsdc(to: Address, amount: bigint): Promise<void>;
  treasury: Address;
  buyers: LocalAccount[];
  publicClient: ChainPublicClient;
  anvil: AnvilTestClient;
  walletClientFor(account: LocalAccount): ChainWalletClient;
  mine(blocks?: number): Promise<void>;
  /** Mines a block now (no 1-second wait) and returns the receipt; throws if the transaction reverted. */
  confirm(hash: Hash): Promise<TransactionReceipt>;
  increaseTime(seconds: number): Promise<void>;
  stop(): Promise<void>;
};

/**
 * Why a mined transaction reverted, for the failure message: its gas used against its limit (all of it: out of gas)
 * and the revert data of the same call replayed on the state before its block (another transaction of that block
 * may have changed it, so this is a hint, not proof).
 */
async function whyReverted(publicClient: ChainPublicClient, hash: Hash, receipt: TransactionReceipt): Promise<string> {
  const tx = await publicClient.getTransaction({ hash });
  const gas = `gas ${receipt.gasUsed} of ${tx.gas}, block ${receipt.blockNumber}, from ${tx.from} to ${tx.to}`;
  try {
    await publicClient.call({ account: tx.from, to: tx.to, data: tx.input, value: tx.value, gas: tx.gas, blockNumber: receipt.blockNumber - 1n });
    return `${gas}; the replay before its block succeeds`;
  } catch (err) {
    return `${gas}; replay: ${(err as BaseError).shortMessage ?? String(err)} ${(err as { data?: unknown }).data ?? ''}`.slice(0, 600);
  }
}

export const TEST_BUYER_USDC = 1_000_000n * 10n ** 6n;

export async function startTestChain(opts: { buyers?: number; chainId?: number } = {}): Promise<TestChain> {
  const chainId = opts.chainId ?? DEVNET_CHAIN_ID;
  const node = await startAnvil({ port: 0, chainId, blockTime: 1, accounts: 1 });
  try {
    const { rpcUrl } = node;
    const fresh = () => privateKeyToAccount(generatePrivateKey());
    const [owner, signer, operator, treasury] = [fresh(), fresh(), fresh(), fresh()];
    const roles = testCircleRoles(treasury.address);
    const buyers = Array.from({ length: opts.buyers ?? 3 }, fresh);
    const publicClient = makePublicClient({ rpcUrl, chainId, devnet: true });
    const anvil = makeAnvilClient(rpcUrl, chainId);
    for (const a of [owner, operator, roles.pauser, roles.blacklister, ...buyers]) await anvil.setBalance({ address: a.address, value: 10n ** 21n });

    const walletClientFor = (account: LocalAccount) => makeWalletClient({ rpcUrl, chainId, devnet: true, account });
    const { usdc, router, subscriptionManager, depositFactory } = await deployDevStack({
      walletClient: walletClientFor(owner),
      publicClient,
      signer: signer.address,
      operator: operator.address,
      treasury: treasury.address,
      buyers: buyers.map((b) => b.address),
      usdcEach: TEST_BUYER_USDC,
      roles: roles.addresses,
    });
    const confirm = async (hash: Hash) => {
      await anvil.mine({ blocks: 1 });
      const receipt = await publicClient.waitForTransactionReceipt({ hash });
      if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted: ${await whyReverted(publicClient, hash, receipt)}`);
      return receipt;
    };

    return {
      rpcUrl,
      chainId,
      usdc,
      router,
      subscriptionManager,
      depositFactory,
      signer,
      operator,
      owner,
      usdcPauser: roles.pauser,
      usdcBlacklister: roles.blacklister,
      fundUsdc: fundUsdcWith(walletClientFor(owner), usdc, confirm),
      treasury: treasury.address,
      buyers,
      publicClient,
      anvil,
      walletClientFor,
      mine: (blocks = 1) => anvil.mine({ blocks }),
      confirm,
      increaseTime: async (seconds) => {
        await anvil.increaseTime({ seconds });
        await anvil.mine({ blocks: 1 });
      },
      stop: node.stop,
    };
  } catch (err) {
    await node.stop();
    throw err;
  }
}

/** Fresh holders of the USDC's proxy-admin, pauser and blacklister roles; lost-and-found is `lostAndFound`. */
export function testCircleRoles(lostAndFound: Address) {
  const [proxyAdmin, pauser, blacklister] = [0, 1, 2].map(() => privateKeyToAccount(generatePrivateKey()));
  return {
    pauser: pauser!, blacklister: blacklister!,
    addresses: { proxyAdmin: proxyAdmin!.address, pauser: pauser!.address, blacklister: blacklister!.address, lostAndFound },
  };
}

/** fundUsdc for a chain whose USDC minter is the wallet's account. */
export const fundUsdcWith = (minter: ChainWalletClient, usdc: Address, confirm: (hash: Hash) => Promise<TransactionReceipt>) =>
  async (to: Address, amount: bigint): Promise<void> => {
    await confirm(await minter.writeContract({ address: usdc, abi: circleUsdcAbi, functionName: 'mint', args: [to, amount] }));
  };

/** Awaits a contract call expected to revert (e.g. simulateContract) and returns the decoded custom error. */
export async function revertOf(call: Promise<unknown>): Promise<{ errorName: string; args: readonly unknown[] }> {
  try {
    await call;
  } catch (err) {
    const reverted = err instanceof BaseError ? err.walk((e) => e instanceof ContractFunctionRevertedError) : null;
    if (reverted instanceof ContractFunctionRevertedError && reverted.data) {
      return { errorName: reverted.data.errorName, args: reverted.data.args ?? [] };
    }
    throw err;
  }
  throw new Error('expected the call to revert, it succeeded');
}

/**
 * Fresh service keys authorised on the router by its owner: a signer for PayOrder/RefundOrder and an operator
 * (funded with gas) for refunds and settlements. Returns the private keys the service is configured with.
 */
export async function authoriseServiceKeys(c: Pick<TestChain, 'router' | 'owner' | 'walletClientFor' | 'confirm' | 'anvil'>) {
  const signerPrivateKey = generatePrivateKey();
  const operatorPrivateKey = generatePrivateKey();
  const owner = c.walletClientFor(c.owner);
  await c.confirm(await owner.writeContract({ address: c.router, abi: paymentRouterAbi, functionName: 'addSigner', args: [privateKeyToAccount(signerPrivateKey).address] }));
  await c.confirm(await owner.writeContract({ address: c.router, abi: paymentRouterAbi, functionName: 'setOperator', args: [privateKeyToAccount(operatorPrivateKey).address] }));
  await c.anvil.setBalance({ address: privateKeyToAccount(operatorPrivateKey).address, value: 10n ** 21n });
  return { signerPrivateKey, operatorPrivateKey };
}
