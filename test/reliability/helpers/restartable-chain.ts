import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Hash, LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startAnvil, type AnvilHandle } from '../../../src/chain/anvil.js';
import { DEVNET_CHAIN_ID, makeAnvilClient, makePublicClient, makeWalletClient } from '../../../src/chain/clients.js';
import { deployDevStack } from '../../../src/chain/deploy.js';
import { authoriseServiceKeys, fundUsdcWith, testCircleRoles, TEST_BUYER_USDC, type TestChain } from '../../helpers/chain.js';
import { freePort } from './service.js';

/**
 * Like test/helpers/chain.ts, but anvil keeps its state in a file (--state) on a fixed port, so it can be
 * stopped and started again with the same chain: what an RPC node restart looks like to the service.
 * Also authorises a service signer and operator on the router.
 */
export async function startRestartableChain(opts: { buyers?: number } = {}) {
  const port = await freePort();
  const statePath = path.join(mkdtempSync(path.join(tmpdir(), 'trisettle-anvil-')), 'state.json');
  let node: AnvilHandle = await startAnvil({ port, chainId: DEVNET_CHAIN_ID, blockTime: 1, accounts: 1, statePath, stateInterval: 1 });
  const rpcUrl = node.rpcUrl;
  const fresh = () => privateKeyToAccount(generatePrivateKey());
  const [owner, signer, operator, treasury] = [fresh(), fresh(), fresh(), fresh()];
  const roles = testCircleRoles(treasury.address);
  const buyers = Array.from({ length: opts.buyers ?? 3 }, fresh);
  const publicClient = makePublicClient({ rpcUrl, chainId: DEVNET_CHAIN_ID, devnet: true });
  const anvil = makeAnvilClient(rpcUrl, DEVNET_CHAIN_ID);
  for (const a of [owner, operator, roles.pauser, roles.blacklister, ...buyers]) await anvil.setBalance({ address: a.address, value: 10n ** 21n });
  const walletClientFor = (account: LocalAccount) => makeWalletClient({ rpcUrl, chainId: DEVNET_CHAIN_ID, devnet: true, account });
  const { usdc, router, subscriptionManager, depositFactory } = await deployDevStack({
    walletClient: walletClientFor(owner), publicClient, signer: signer.address, operator: operator.address, treasury: treasury.address,
    buyers: buyers.map((b) => b.address), usdcEach: TEST_BUYER_USDC, roles: roles.addresses,
  });
  const confirm = async (hash: Hash) => {
    await anvil.mine({ blocks: 1 });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`);
    return receipt;
  };
  const { signerPrivateKey: serviceSigner, operatorPrivateKey: serviceOperator } = await authoriseServiceKeys({ router, owner, walletClientFor, confirm, anvil });

  const chain: TestChain = {
    rpcUrl, chainId: DEVNET_CHAIN_ID, usdc, router, subscriptionManager, depositFactory, signer, operator, owner, usdcPauser: roles.pauser, usdcBlacklister: roles.blacklister,
    fundUsdc: fundUsdcWith(walletClientFor(owner), usdc, confirm), treasury: treasury.address, buyers, publicClient, anvil, walletClientFor,
    mine: (blocks = 1) => anvil.mine({ blocks }),
    confirm,
    increaseTime: async (seconds) => {
      await anvil.increaseTime({ seconds });
      await anvil.mine({ blocks: 1 });
    },
    stop: () => node.stop(),
  };
  return {
    chain,
    serviceSigner,
    serviceOperator,
    /** SIGTERM (anvil dumps its state), then the same port and state file again. */
    async stopNode() {
      await node.stop();
    },
    async startNode() {
      node = await startAnvil({ port, chainId: DEVNET_CHAIN_ID, blockTime: 1, accounts: 1, statePath, stateInterval: 1 });
    },
    stop: () => node.stop(),
  };
}
