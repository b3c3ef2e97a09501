/**
 * The zero-configuration devnet (DESIGN §2): anvil with chain id 84532 and 1-second blocks, Circle's USDC
 * (FiatTokenV2_2 behind FiatTokenProxy, circle-usdc.ts), the PaymentRouter, its SubscriptionManager module and the DepositFactory deployed, anvil's well-known dev accounts funded with test USDC, and service secrets
 * generated once. Everything lives in dataDir and is reused on the next start (same addresses).
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { getAddress, toHex, type Address, type Hex } from 'viem';
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { startAnvil, type AnvilHandle } from './anvil.js';
import { paymentRouterAbi, paymentRouterBytecode } from './artifacts/PaymentRouter.js';
import { subscriptionManagerBytecode } from './artifacts/SubscriptionManager.js';
import { depositFactoryBytecode } from './artifacts/DepositFactory.js';
import { DEVNET_CHAIN_ID, makeAnvilClient, makePublicClient, makeWalletClient, type ChainPublicClient } from './clients.js';
import { isCircleUsdc } from './circle-usdc.js';
import { deployDevStack, runsArtifact } from './deploy.js';
import { ROUTER_DOMAIN_NAME } from './eip712.js';

/** Shape of `${dataDir}/devnet.json`. */
export type DevnetInfo = {
  chain_id: number;
  rpc_url: string;
  /** The API's base URL (the service's PUBLIC_BASE_URL) for tools that read this file; absent in files written before it. */
  api_url?: string;
  usdc: Address;
  router: Address;
  /** The router's registered SubscriptionManager module (spend permissions, recurring charges). */
  subscription_manager: Address;
  /** The DepositFactory (per-order deposit addresses, docs/deposits.md). */
  deposit_factory: Address;
  /** A block at or just before the router deployment: where an indexer with no cursor starts. */
  router_deploy_block: number;
  service_treasury: Address;
  admin_token: string;
  accounts: { address: Address; private_key: Hex }[];
};

export type DevnetSecrets = {
  signerPrivateKey: Hex;
  operatorPrivateKey: Hex;
  /** Sends gasless payments and pays their gas (funded with devnet ETH at every start). */
  relayerPrivateKey: Hex;
  adminToken: string;
  /** Owner of the router and of the USDC (its master minter and minter: can mint, rotate signers) on the devnet. */
  deployerPrivateKey: Hex;
  /** The USDC's pauser and blacklister (Circle's roles), to exercise pause and blacklist on the devnet. */
  usdcPauserPrivateKey: Hex;
  usdcBlacklisterPrivateKey: Hex;
};

export type DevnetLogger = { info(msg: string): void; warn(msg: string): void };

export type Devnet = {
  info: DevnetInfo;
  secrets: DevnetSecrets;
  /** Contracts were deployed by this start (first start, or the saved chain was unusable): the chain
   *  restarted from block 0, so an indexer cursor kept from before must be reset. */
  deployed: boolean;
  stop(): Promise<void>;
};

type SecretsFile = {
  signer_private_key: Hex;
  operator_private_key: Hex;
  deployer_private_key: Hex;
  treasury_private_key: Hex;
  admin_token: string;
  /** Added with Circle's USDC (older files lack them: generated and saved on the next start). */
  relayer_private_key: Hex;
  usdc_proxy_admin_private_key: Hex;
  usdc_pauser_private_key: Hex;
  usdc_blacklister_private_key: Hex;
};

const LATER_KEYS = ['relayer_private_key', 'usdc_proxy_admin_private_key', 'usdc_pauser_private_key', 'usdc_blacklister_private_key'] as const;

/** anvil's default mnemonic: its accounts are the devnet's buyers, importable into any wallet. */
export const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';
const DEV_ACCOUNTS = 10;
const DEV_USDC = 1_000_000n * 10n ** 6n;
const GAS_ETH = 10_000n * 10n ** 18n;

function devAccounts(): DevnetInfo['accounts'] {
  return Array.from({ length: DEV_ACCOUNTS }, (_, i) => {
    const account = mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: i });
    const key = account.getHdKey().privateKey;
    if (!key) throw new Error('HD key without private key');
    return { address: account.address, private_key: toHex(key) };
  });
}

function loadOrCreateSecrets(file: string): SecretsFile {
  if (existsSync(file)) {
    chmodSync(file, 0o600);
    const saved = JSON.parse(readFileSync(file, 'utf8')) as Partial<SecretsFile>;
    if (LATER_KEYS.every((k) => saved[k])) return saved as SecretsFile;
    for (const k of LATER_KEYS) saved[k] ??= generatePrivateKey();
    writeFileSync(file, `${JSON.stringify(saved, null, 2)}\n`, { mode: 0o600 });
    return saved as SecretsFile;
  }
  const secrets: SecretsFile = {
    signer_private_key: generatePrivateKey(),
    operator_private_key: generatePrivateKey(),
    deployer_private_key: generatePrivateKey(),
    treasury_private_key: generatePrivateKey(),
    admin_token: `adm_${randomBytes(24).toString('base64url')}`,
    relayer_private_key: generatePrivateKey(),
    usdc_proxy_admin_private_key: generatePrivateKey(),
    usdc_pauser_private_key: generatePrivateKey(),
    usdc_blacklister_private_key: generatePrivateKey(),
  };
  writeFileSync(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  return secrets;
}

async function startAnvilKeepingData(statePath: string, port: number, log: DevnetLogger): Promise<AnvilHandle> {
  try {
    return await startAnvil({ port, chainId: DEVNET_CHAIN_ID, blockTime: 1, statePath });
  } catch (err) {
    if (!existsSync(statePath)) throw err;
    // A state file anvil cannot load (truncated by a crash, older format) must not block start-up.
    const aside = `${statePath}.unusable-${Date.now()}`;
    renameSync(statePath, aside);
    log.warn(`devnet: anvil could not load ${statePath} (moved to ${aside}); starting a fresh chain`);
    return startAnvil({ port, chainId: DEVNET_CHAIN_ID, blockTime: 1, statePath });
  }
}

/** Why a previous devnet.json cannot be reused on this chain, or null if it can. */
async function whyUnusable(client: ChainPublicClient, prev: DevnetInfo, signer: Address): Promise<string | null> {
  if (prev.chain_id !== DEVNET_CHAIN_ID) return `chain id ${prev.chain_id}`;
  const codes: Record<string, Hex | undefined> = {};
  for (const [what, addr] of [['router', prev.router], ['usdc', prev.usdc]] as const) {
    const code = (codes[what] = await client.getCode({ address: addr }));
    if (!code || code === '0x') return `no ${what} code at ${addr}`;
  }
  // A devnet made before the switch to Circle's USDC holds a TestUSDC there: redeploy everything.
  if (!(await isCircleUsdc(client, prev.usdc))) return `the USDC at ${prev.usdc} is not Circle's FiatToken (an older devnet's TestUSDC)`;
  const [, name] = await client.readContract({ address: prev.router, abi: paymentRouterAbi, functionName: 'eip712Domain' });
  if (name !== ROUTER_DOMAIN_NAME) return `contract at ${prev.router} is not a PaymentRouter`;
  // A router deployed from older sources (e.g. before PayOrder.captureDeadline) cannot verify what the service signs now.
  if (!runsArtifact(codes.router!, paymentRouterBytecode)) return `the router at ${prev.router} runs other bytecode than src/chain/artifacts/PaymentRouter.ts (compiler metadata differs: deployed from older sources)`;
  const ok = await client.readContract({ address: prev.router, abi: paymentRouterAbi, functionName: 'isSigner', args: [signer] });
  if (!ok) return 'router does not know the devnet signer';
  return (await whyManagerUnusable(client, prev)) ?? (await whyFactoryUnusable(client, prev));
}

/** The DepositFactory must exist (a devnet made before deposit addresses has none) and run the artifact. */
async function whyFactoryUnusable(client: ChainPublicClient, prev: DevnetInfo): Promise<string | null> {
  if (!prev.deposit_factory) return 'no deposit factory (a devnet made before deposit addresses)';
  const code = await client.getCode({ address: prev.deposit_factory });
  if (!code || !runsArtifact(code, depositFactoryBytecode)) return `the deposit factory at ${prev.deposit_factory} runs other bytecode than src/chain/artifacts/DepositFactory.ts`;
  return null;
}

/** The SubscriptionManager must exist (a devnet made before subscriptions has none), run the artifact and be registered. */
async function whyManagerUnusable(client: ChainPublicClient, prev: DevnetInfo): Promise<string | null> {
  if (!prev.subscription_manager) return 'no subscription manager (a devnet made before subscriptions)';
  const code = await client.getCode({ address: prev.subscription_manager });
  if (!code || !runsArtifact(code, subscriptionManagerBytecode)) return `the subscription manager at ${prev.subscription_manager} runs other bytecode than src/chain/artifacts/SubscriptionManager.ts`;
  const registered = await client.readContract({ address: prev.router, abi: paymentRouterAbi, functionName: 'isModule', args: [prev.subscription_manager] });
  return registered ? null : `the subscription manager at ${prev.subscription_manager} is not a module of the router`;
}

/** The token's pauser and blacklister: funded so they can act on the devnet. */
const usdcRoleHolders = (s: SecretsFile) => [s.usdc_pauser_private_key, s.usdc_blacklister_private_key].map((k) => privateKeyToAccount(k).address);

/** The relayer pays every gasless payment's gas: topped up at each start (also on a reused chain, and for a key added later). */
async function fundRelayer(rpcUrl: string, client: ChainPublicClient, s: SecretsFile): Promise<void> {
  const relayer = privateKeyToAccount(s.relayer_private_key).address;
  if ((await client.getBalance({ address: relayer })) < GAS_ETH / 10n) await makeAnvilClient(rpcUrl).setBalance({ address: relayer, value: GAS_ETH });
}

async function deployAll(
  rpcUrl: string,
  client: ChainPublicClient,
  s: SecretsFile,
  accounts: DevnetInfo['accounts'],
  reserveHoldSeconds: bigint | undefined,
): Promise<Omit<DevnetInfo, 'rpc_url' | 'admin_token' | 'accounts' | 'chain_id'>> {
  const deployer = privateKeyToAccount(s.deployer_private_key);
  const operator = privateKeyToAccount(s.operator_private_key).address;
  const treasury = privateKeyToAccount(s.treasury_private_key).address;
  const anvil = makeAnvilClient(rpcUrl);
  for (const address of [deployer.address, operator, ...usdcRoleHolders(s)]) await anvil.setBalance({ address, value: GAS_ETH });
  const startBlock = await client.getBlockNumber(); // at or before the deployment: safe for an indexer
  const { usdc, router, subscriptionManager, depositFactory } = await deployDevStack({
    walletClient: makeWalletClient({ rpcUrl, chainId: DEVNET_CHAIN_ID, devnet: true, account: deployer }),
    publicClient: client,
    signer: privateKeyToAccount(s.signer_private_key).address,
    operator,
    treasury,
    buyers: accounts.map((a) => a.address),
    usdcEach: DEV_USDC,
    reserveHoldSeconds,
    roles: {
      proxyAdmin: privateKeyToAccount(s.usdc_proxy_admin_private_key).address,
      pauser: privateKeyToAccount(s.usdc_pauser_private_key).address,
      blacklister: privateKeyToAccount(s.usdc_blacklister_private_key).address,
      lostAndFound: treasury,
    },
  });
  return { usdc, router, subscription_manager: subscriptionManager, deposit_factory: depositFactory, router_deploy_block: Number(startBlock), service_treasury: treasury };
}

/** `reserveHoldSeconds`: the router's per-order reserve hold (RESERVE_HOLD_DAYS); default 7 days. `apiUrl`: written as api_url. */
export async function startDevnet(opts: { dataDir: string; port: number; apiUrl?: string; log?: DevnetLogger; reserveHoldSeconds?: bigint }): Promise<Devnet> {
  const log = opts.log ?? { info: (m) => console.log(m), warn: (m) => console.warn(m) };
  mkdirSync(opts.dataDir, { recursive: true });
  const infoPath = path.join(opts.dataDir, 'devnet.json');
  const secrets = loadOrCreateSecrets(path.join(opts.dataDir, 'devnet-secrets.json'));
  const anvil = await startAnvilKeepingData(path.join(opts.dataDir, 'anvil-state.json'), opts.port, log);
  try {
    const client = makePublicClient({ rpcUrl: anvil.rpcUrl, chainId: DEVNET_CHAIN_ID, devnet: true });
    const accounts = devAccounts();
    const signer = privateKeyToAccount(secrets.signer_private_key).address;
    const prev = existsSync(infoPath) ? (JSON.parse(readFileSync(infoPath, 'utf8')) as DevnetInfo) : null;
    const reason = prev ? await whyUnusable(client, prev, signer).catch((err: Error) => err.message) : 'first start';
    const reuse = prev !== null && reason === null;
    let deployed: Omit<DevnetInfo, 'rpc_url' | 'admin_token' | 'accounts' | 'chain_id'>;
    if (prev && reuse) {
      deployed = prev;
      log.info(`devnet: reusing router ${prev.router} and USDC ${prev.usdc}`);
    } else {
      if (prev) log.warn(`devnet: previous deployment unusable (${reason}); redeploying`);
      deployed = await deployAll(anvil.rpcUrl, client, secrets, accounts, opts.reserveHoldSeconds);
      log.info(`devnet: deployed router ${deployed.router} and USDC ${deployed.usdc}`);
    }
    await fundRelayer(anvil.rpcUrl, client, secrets);
    const info: DevnetInfo = {
      chain_id: DEVNET_CHAIN_ID,
      rpc_url: anvil.rpcUrl,
      ...(opts.apiUrl ? { api_url: opts.apiUrl } : {}),
      usdc: getAddress(deployed.usdc),
      router: getAddress(deployed.router),
      subscription_manager: getAddress(deployed.subscription_manager),
      deposit_factory: getAddress(deployed.deposit_factory),
      router_deploy_block: deployed.router_deploy_block,
      service_treasury: getAddress(deployed.service_treasury),
      admin_token: secrets.admin_token,
      accounts,
    };
    writeFileSync(infoPath, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
    return {
      info,
      deployed: !reuse,
      secrets: {
        signerPrivateKey: secrets.signer_private_key,
        operatorPrivateKey: secrets.operator_private_key,
        relayerPrivateKey: secrets.relayer_private_key,
        usdcPauserPrivateKey: secrets.usdc_pauser_private_key,
        usdcBlacklisterPrivateKey: secrets.usdc_blacklister_private_key,
        adminToken: secrets.admin_token,
        deployerPrivateKey: secrets.deployer_private_key,
      },
      stop: anvil.stop,
    };
  } catch (err) {
    await anvil.stop();
    throw err;
  }
}
