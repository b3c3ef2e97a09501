/**
 * Deploys the PaymentRouter, its SubscriptionManager module and the DepositFactory (deposit addresses) to a real network (Base Sepolia 84532, Base 8453).
 * When the deployer is the router's owner it registers the manager (setModule); otherwise it prints the owner's
 * setModule transaction to submit (the owner should be a multisig).
 *
 *   DEPLOYER_PRIVATE_KEY=0x… npm run deploy -- --rpc-url https://… --owner 0x… --signer 0x… \
 *     --operator 0x… --treasury 0x…
 *
 * Every flag may instead come from the environment: RPC_URL, OWNER, SIGNER_ADDRESS, OPERATOR_ADDRESS,
 * SERVICE_TREASURY. The deployer key is read from the environment only (a flag would land in shell
 * history and `ps`). The owner should be a multisig: it rotates signers and pauses. Deploying to Base
 * mainnet (8453) also needs --yes.
 */
import { parseArgs } from 'node:util';
import { createPublicClient, encodeFunctionData, getAddress, http, isAddress, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { paymentRouterAbi } from '../src/chain/artifacts/PaymentRouter.js';
import { makePublicClient, makeWalletClient } from '../src/chain/clients.js';
import { deployDepositFactory, deployRouter, deploySubscriptionManager, sendRegisterModule } from '../src/chain/deploy.js';

function fail(message: string): never {
  console.error(`deploy: ${message}`);
  process.exit(1);
}

const { values: flags } = parseArgs({
  options: {
    'rpc-url': { type: 'string' },
    owner: { type: 'string' },
    signer: { type: 'string' },
    operator: { type: 'string' },
    treasury: { type: 'string' },
    confirmations: { type: 'string', default: '2' },
    yes: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});

if (flags.help) {
  console.log(`Usage: DEPLOYER_PRIVATE_KEY=0x… npm run deploy -- --rpc-url URL --owner ADDR --signer ADDR \\
         --operator ADDR --treasury ADDR [--confirmations 2] [--yes]
Flags may come from RPC_URL, OWNER, SIGNER_ADDRESS, OPERATOR_ADDRESS, SERVICE_TREASURY instead.
RESERVE_HOLD_DAYS (default 7) sets the router's per-order reserve hold.
--yes is required on Base mainnet (8453). Prints ROUTER_ADDRESS_<chainId>=… and
SUBSCRIPTION_MANAGER_ADDRESS_<chainId>=… and DEPOSIT_FACTORY_ADDRESS_<chainId>=… to set, and the owner's setModule call if the deployer is not the owner.`);
  process.exit(0);
}

function addressFrom(flag: keyof typeof flags, envName: string): Address {
  const value = (flags[flag] as string | undefined) ?? process.env[envName];
  if (!value) fail(`--${flag} or ${envName} is required`);
  if (!isAddress(value, { strict: false })) fail(`--${flag} / ${envName} is not an address: ${value}`);
  return getAddress(value);
}

async function main(): Promise<void> {
  const rpcUrl = flags['rpc-url'] ?? process.env.RPC_URL ?? fail('--rpc-url or RPC_URL is required');
  const key = process.env.DEPLOYER_PRIVATE_KEY;
  if (!key || !/^0x[0-9a-fA-F]{64}$/.test(key)) fail('DEPLOYER_PRIVATE_KEY (0x + 64 hex) is required in the environment');
  const owner = addressFrom('owner', 'OWNER');
  const signer = addressFrom('signer', 'SIGNER_ADDRESS');
  const operator = addressFrom('operator', 'OPERATOR_ADDRESS');
  const treasury = addressFrom('treasury', 'SERVICE_TREASURY');
  const confirmations = Number(flags.confirmations);
  if (!Number.isInteger(confirmations) || confirmations < 1) fail('--confirmations must be a positive integer');
  // The router's per-order reserve hold (settleBatch releases a reserve only after it): RESERVE_HOLD_DAYS, default 7.
  const holdDays = Number(process.env.RESERVE_HOLD_DAYS ?? '7');
  if (!Number.isInteger(holdDays) || holdDays < 0 || holdDays > 365) fail('RESERVE_HOLD_DAYS must be a whole number of days (0–365)');
  const reserveHoldSeconds = BigInt(holdDays * 86_400);

  const chainId = await createPublicClient({ transport: http(rpcUrl, { timeout: 15_000 }) }).getChainId();
  if (chainId === 8453 && !flags.yes) fail('chain 8453 is Base mainnet: re-run with --yes to deploy there');
  const account = privateKeyToAccount(key as Hex);
  const publicClient = makePublicClient({ rpcUrl, chainId });
  const walletClient = makeWalletClient({ rpcUrl, chainId, account });
  const gas = await publicClient.getBalance({ address: account.address });
  console.log(`chain ${chainId}, deployer ${account.address} (${gas} wei)`);
  console.log(`owner ${owner}\nsigner ${signer}\noperator ${operator}\ntreasury ${treasury}`);
  if (gas === 0n) fail('the deployer has no native balance for gas');

  const router = await deployRouter({ walletClient, publicClient, owner, signer, operator, treasury, confirmations, reserveHoldSeconds });
  // Read the configuration back from the chain rather than trusting the constructor arguments.
  const read = <F extends 'owner' | 'operator' | 'serviceTreasury'>(functionName: F) =>
    publicClient.readContract({ address: router, abi: paymentRouterAbi, functionName });
  const [onOwner, onOperator, onTreasury, onSigner] = await Promise.all([
    read('owner'),
    read('operator'),
    read('serviceTreasury'),
    publicClient.readContract({ address: router, abi: paymentRouterAbi, functionName: 'isSigner', args: [signer] }),
  ]);
  if (onOwner !== owner || onOperator !== operator || onTreasury !== treasury || !onSigner) {
    fail(`router ${router} does not report the configuration it was deployed with`);
  }
  const manager = await deploySubscriptionManager({ walletClient, publicClient, router, confirmations });
  const registered = await registerManager({ walletClient, publicClient, router, manager, confirmations });
  // No owner and no registration: the factory only deploys clones that pay this router or return the funds.
  const depositFactory = await deployDepositFactory({ walletClient, publicClient, router, confirmations });
  console.log(`\nPaymentRouter deployed at ${router}\nSubscriptionManager deployed at ${manager}\nDepositFactory deployed at ${depositFactory}`);
  if (!registered) {
    console.log(`\nThe owner ${owner} must register the SubscriptionManager (setModule(${manager}, true)): send to ${router}`);
    console.log(`data ${encodeFunctionData({ abi: paymentRouterAbi, functionName: 'setModule', args: [manager, true] })}`);
  }
  console.log(`\nSet in the service's environment:`);
  console.log(`ROUTER_ADDRESS_${chainId}=${router}`);
  console.log(`SUBSCRIPTION_MANAGER_ADDRESS_${chainId}=${manager}`);
  console.log(`DEPOSIT_FACTORY_ADDRESS_${chainId}=${depositFactory}`);
}

/** setModule(manager, true) when the deployer owns the router, checked on chain; false when the owner must do it. */
async function registerManager(p: {
  walletClient: ReturnType<typeof makeWalletClient>;
  publicClient: ReturnType<typeof makePublicClient>;
  router: Address;
  manager: Address;
  confirmations: number;
}): Promise<boolean> {
  if (p.walletClient.account.address !== (await p.publicClient.readContract({ address: p.router, abi: paymentRouterAbi, functionName: 'owner' }))) return false;
  const hash = await sendRegisterModule({ ...p, module: p.manager });
  const receipt = await p.publicClient.waitForTransactionReceipt({ hash, confirmations: p.confirmations, timeout: 120_000 });
  const on = await p.publicClient.readContract({ address: p.router, abi: paymentRouterAbi, functionName: 'isModule', args: [p.manager] });
  if (receipt.status !== 'success' || !on) fail(`setModule(${p.manager}) on router ${p.router} failed (tx ${hash})`);
  return true;
}

main().catch((err: unknown) => fail(err instanceof Error ? err.message : String(err)));
