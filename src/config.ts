import { isIP } from 'node:net';
import { isWellFormedAddress, SUPPORTED_CHAIN_IDS, type ChainId } from './lib/address.js';
import { AMOUNT_PATTERN, parseAmount } from './lib/money.js';
import { registerSecretUrls } from './lib/redact-urls.js';
import { z } from 'zod';
import { getAddress, type Address, type Hex } from 'viem';

/**
 * The only reader of process.env. Every variable of DESIGN §2 is parsed here; a bad value stops
 * start-up with a message that names the variable. Devnet mode = no RPC_URL_<chainId> configured:
 * main.ts then starts anvil and fills chain 84532 in from the devnet it deployed.
 */
export { isWellFormedAddress, SUPPORTED_CHAIN_IDS, type ChainId } from './lib/address.js';
const DEFAULT_CONFIRMATIONS: Record<ChainId, number> = { 84532: 10, 8453: 20 };
/** A block tag the node itself calls final enough (`latest` = depth only). */
export const FINALITY_TAGS = ['latest', 'safe', 'finalized'] as const;
export type FinalityTag = (typeof FINALITY_TAGS)[number];

export type ChainConfig = {
  chainId: number;
  rpcUrl: string;
  /** RPC_WS_URL_<id>: the same node over WebSocket; new heads by subscription wake the indexer (a poll stays underneath). */
  wsUrl?: string | undefined;
  router: Address;
  usdc: Address;
  /** SUBSCRIPTION_MANAGER_ADDRESS_<id>: the SubscriptionManager registered with the router (setModule); absent: no subscriptions on the chain. */
  subscriptionManager?: Address | undefined;
  /** DEPOSIT_FACTORY_ADDRESS_<id>: the DepositFactory for per-order deposit addresses; absent: deposit addresses are refused (409 deposits_unavailable). */
  depositFactory?: Address | undefined;
  confirmations: number;
  /**
   * The indexer reads up to min(head − confirmations, the block this tag names): the chain's own finality
   * where the RPC offers it, or the depth, whichever is deeper. Absent: `safe`, or `latest` on the devnet.
   */
  finality?: FinalityTag;
  /** First block the indexer reads when it has no cursor (the router's deployment block). */
  startBlock?: bigint;
};

export type Config = {
  env: 'devnet' | 'production';
  /** HOST: the address the HTTP server listens on (devnet 127.0.0.1: its secrets are well known; production 0.0.0.0). */
  host: string;
  port: number;
  dataDir: string;
  databaseUrl: string | null;
  publicBaseUrl: string;
  dashboardUrl: string;
  chains: Map<number, ChainConfig>;
  signerPrivateKey: Hex | null;
  operatorPrivateKey: Hex | null;
  /** RELAYER_PRIVATE_KEY: sends gasless payments (payOrderWithAuthorization) and pays their gas (modules/relay). */
  relayerPrivateKey: Hex | null;
  /** GASLESS_ENABLED: the deployment's switch for gasless payment. Default: on on the devnet, else on when a relayer key is set. */
  gaslessEnabled: boolean;
  /** DEPOSIT_LATE_GRACE_SECONDS: for a session with late_payment accept, how long after expires_at its deposit address still pays (its on-chain deadline). */
  depositLateGraceSeconds: number;
  /** DEPOSIT_SWEEPS_PER_PLATFORM_PER_DAY: sweeps the relayer sends per platform per UTC day (chain clock); past it, funds wait for anyone's sweep. */
  depositSweepsPerPlatformPerDay: number;
  /** DEPOSIT_MIN_SWEEP_AMOUNT: the relayer never sweeps a deposit holding less (base units; dust returns wait for anyone's sweep). */
  depositMinSweep: bigint;
  /** DEPOSIT_WATCH_DAYS: the indexer watches a deposit address until this long after its deadline. */
  depositWatchDays: number;
  /** GASLESS_DAILY_CAP: relays accepted per platform per UTC day (chain clock). */
  gaslessDailyCap: number;
  /** RELAYER_GAS_LIMIT: the most gas one relay may be signed with or simulated with (modules/relay, docs/gasless.md). */
  relayerGasLimit: bigint;
  /** How long a paid x402 request waits for the relayer's transaction to be mined before it answers settlement_pending. */
  x402SettleWaitMs: number;
  /** RELAYER_DAILY_BUDGET_WEI: the relayer's spend per chain per UTC day (chain clock), reserved at accept. */
  relayerDailyBudgetWei: bigint;
  /** GASLESS_MIN_AMOUNT: the smallest order (USDC, as base units here) offered gasless. */
  gaslessMinAmount: bigint;
  /**
   * X402_MIN_AMOUNT: the smallest order (USDC, as base units here) an x402 payment is relayed for. Its own floor, below
   * GASLESS_MIN_AMOUNT by default: x402 prices are API calls (cents), and the relayer's budget, not the amount, bounds
   * its spend (docs/decisions.md).
   */
  x402MinAmount: bigint;
  /** RATE_LIMIT_RELAY_REFUSALS_PER_MINUTE: refused relay requests per client address per minute (api/middleware/relay-refusals.ts). */
  relayRefusalsPerMinute: number;
  /** RPC_BATCH_SIZE: JSON-RPC calls made in the same tick go to the node as one batch of at most this many (0: one request each). */
  rpcBatchSize: number;
  serviceFeeBps: number;
  serviceTreasury: Address | null;
  adminToken: string | null;
  betterAuthSecret: string | null;
  reserveHoldDays: number;
  devnetRpcPort: number;
  logLevel: string;
  /** Reverse proxies in front of the service that append to X-Forwarded-For (0: clients connect directly). */
  trustProxyHops: number;
  role: 'api' | 'worker' | 'all';
  /** Lifetime of the operator sender's lease (modules/operator-txs): another worker takes over once it lapses. */
  operatorLeaseSeconds: number;
  /**
   * TEST-ONLY fault hook (OPERATOR_TX_FAULT): `kill_after_record:N` makes the operator sender SIGKILL its own
   * process right after recording its N-th signed transaction, before broadcasting it. Never set it in production.
   */
  operatorTxFault: string | null;
  /** WEBHOOK_SEAL_KEYS: the first seals webhook secrets at rest, all open them. Empty: derived from the auth secret. */
  webhookSealKeys: string[];
  /** WEBHOOK_DISABLE_AFTER_DAYS: an endpoint failing this long without a success is disabled. */
  webhookDisableAfterDays: number;
  /** WEBHOOK_ATTEMPT_RETENTION_DAYS: attempt rows of finished deliveries older than this are deleted (hourly). */
  webhookAttemptRetentionDays: number;
  /** EVENT_RETENTION_DAYS: events (and their deliveries and attempts) older than this are not served and their weeks are dropped. */
  eventRetentionDays: number;
  /** REQUEST_LOG_RETENTION_DAYS: request log weeks older than this are dropped (on top of the 10,000 rows kept per platform). */
  requestLogRetentionDays: number;
  /** OPERATOR_TX_ATTEMPT_RETENTION_DAYS: signed attempts of finished operator transactions older than this are deleted, all but the one recorded on the transaction. */
  operatorTxAttemptRetentionDays: number;
  /** WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT: POSTs in flight to one endpoint from one instance (deliverer-context.ts DEFAULT_PER_ENDPOINT). */
  webhookPerEndpoint: number;
  /** REQUEST_LOG_QUEUE_MAX_BYTES: the request log's in-memory queue holds at most this many bytes (estimated). */
  requestLogQueueMaxBytes: number;
  /** RATE_LIMIT_*: token buckets per secret key and per client address (api/middleware/rate-limit.ts). */
  rateLimits: { perSecond: number; burst: number; publicPerSecond: number; publicBurst: number; authPerMinute: number };
};

export class ConfigError extends Error {
  constructor(readonly variable: string, problem: string) {
    super(`Invalid configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function read<T>(env: Env, name: string, schema: z.ZodType<T>): T {
  const value = env[name] === '' ? undefined : env[name];
  const result = schema.safeParse(value);
  if (!result.success) throw new ConfigError(name, value === undefined ? 'is required' : (result.error.issues[0]?.message ?? 'is invalid'));
  return result.data;
}

// Plain decimal digits only: z.coerce.number() alone would take " " as 0 and "1e3" or "0x10" as numbers.
const int = (min: number, max: number) =>
  z.string().regex(/^[0-9]{1,9}$/, 'must be a whole number').transform(Number).pipe(z.number().int().min(min).max(max));
const url = z.string().url('must be a URL (http:// or https://)').regex(/^https?:\/\//i, 'must be a URL (http:// or https://)');
const wsUrl = z.string().url('must be a URL (ws:// or wss://)').regex(/^wss?:\/\//i, 'must be a URL (ws:// or wss://)');

/** Wei as a decimal integer string (up to 10^30). */
const wei = z.string().regex(/^[0-9]{1,30}$/, 'must be a whole number of wei').transform((v) => BigInt(v));
/** A USDC amount in decimal ("0.50"), held as base units ("0": no minimum). */
const usdcAmount = z.string().regex(AMOUNT_PATTERN, 'must be a decimal USDC amount with at most 6 decimals').transform((v) => {
  const parsed = parseAmount(v);
  return parsed.ok ? parsed.units : 0n;
});

const address = z
  .string()
  .refine(isWellFormedAddress, 'must be a 0x-prefixed 20-byte hex address with a valid EIP-55 checksum')
  .transform((v) => getAddress(v));
const privateKey = z
  .string()
  .regex(/^0x[0-9a-fA-F]{64}$/, 'must be a 0x-prefixed 32-byte hex private key')
  .transform((v) => v as Hex);

function readChains(env: Env): Map<number, ChainConfig> {
  const chains = new Map<number, ChainConfig>();
  for (const chainId of SUPPORTED_CHAIN_IDS) {
    const rpcUrl = read(env, `RPC_URL_${chainId}`, url.optional());
    if (!rpcUrl) continue;
    chains.set(chainId, {
      chainId,
      rpcUrl,
      wsUrl: read(env, `RPC_WS_URL_${chainId}`, wsUrl.optional()),
      router: read(env, `ROUTER_ADDRESS_${chainId}`, address),
      usdc: read(env, `USDC_ADDRESS_${chainId}`, address),
      subscriptionManager: read(env, `SUBSCRIPTION_MANAGER_ADDRESS_${chainId}`, address.optional()),
      depositFactory: read(env, `DEPOSIT_FACTORY_ADDRESS_${chainId}`, address.optional()),
      confirmations: read(env, `CONFIRMATIONS_${chainId}`, int(0, 1000).default(DEFAULT_CONFIRMATIONS[chainId])),
      finality: read(env, `FINALITY_${chainId}`, z.enum(FINALITY_TAGS, { error: 'must be latest, safe or finalized' }).default('safe')),
    });
  }
  return chains;
}

/**
 * Origins whose browsers may use the session cookie. On the devnet the same server is reached as
 * localhost and 127.0.0.1 alike, so both count.
 */
export function trustedOrigins(config: Pick<Config, 'env' | 'publicBaseUrl' | 'dashboardUrl' | 'port'>): string[] {
  const origins = [config.publicBaseUrl, config.dashboardUrl].map((u) => new URL(u).origin);
  if (config.env === 'devnet') origins.push(`http://localhost:${config.port}`, `http://127.0.0.1:${config.port}`);
  return [...new Set(origins)];
}

/** Every admin token configured (ADMIN_TOKEN may hold the current and the previous one while rotating). */
export const adminTokensOf = (config: Pick<Config, 'adminToken'>): string[] =>
  config.adminToken ? config.adminToken.split(',').map((t) => t.trim()) : [];

export function loadConfig(env: Env = process.env, argv: string[] = process.argv): Config {
  const chains = readChains(env);
  const devnet = chains.size === 0;
  // Provider URLs hold API keys: from here on no part of one is written to a log (lib/redact-urls.ts).
  registerSecretUrls([...chains.values()].flatMap((c) => (c.wsUrl ? [c.rpcUrl, c.wsUrl] : [c.rpcUrl])));
  const port = read(env, 'PORT', int(0, 65535).default(3000));
  const publicBaseUrl = read(env, 'PUBLIC_BASE_URL', url.optional()) ?? `http://localhost:${port}`;
  // "--role=x" or "--role x"; absent means all. (Not argv[indexOf + 1]: with no --role that is argv[0], node's path.)
  const roleFlag = argv.indexOf('--role');
  const roleArg = argv.find((a) => a.startsWith('--role='))?.slice(7) ?? (roleFlag >= 0 ? (argv[roleFlag + 1] ?? '') : 'all');
  const role = z.enum(['api', 'worker', 'all']).safeParse(roleArg);
  if (!role.success) throw new ConfigError('--role', 'must be api, worker or all');

  const config: Config = {
    env: devnet ? 'devnet' : 'production',
    host: read(env, 'HOST', z.string().refine((v) => isIP(v) !== 0, 'must be an IP address to listen on (127.0.0.1, 0.0.0.0, ::)').default(devnet ? '127.0.0.1' : '0.0.0.0')),
    port,
    dataDir: read(env, 'DATA_DIR', z.string().default('./.data')),
    databaseUrl: read(env, 'DATABASE_URL', z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL').optional()) ?? null,
    publicBaseUrl: publicBaseUrl.replace(/\/$/, ''),
    dashboardUrl: (read(env, 'DASHBOARD_URL', url.optional()) ?? publicBaseUrl).replace(/\/$/, ''),
    chains,
    signerPrivateKey: read(env, 'SIGNER_PRIVATE_KEY', privateKey.optional()) ?? null,
    operatorPrivateKey: read(env, 'OPERATOR_PRIVATE_KEY', privateKey.optional()) ?? null,
    relayerPrivateKey: read(env, 'RELAYER_PRIVATE_KEY', privateKey.optional()) ?? null,
    gaslessEnabled: read(env, 'GASLESS_ENABLED', z.enum(['true', 'false']).optional()) === undefined
      ? devnet || (env.RELAYER_PRIVATE_KEY ?? '') !== ''
      : env.GASLESS_ENABLED === 'true',
    gaslessDailyCap: read(env, 'GASLESS_DAILY_CAP', int(0, 100_000_000).default(1000)),
    depositLateGraceSeconds: read(env, 'DEPOSIT_LATE_GRACE_SECONDS', int(0, 7 * 86_400).default(3600)),
    depositSweepsPerPlatformPerDay: read(env, 'DEPOSIT_SWEEPS_PER_PLATFORM_PER_DAY', int(0, 100_000_000).default(1000)),
    depositMinSweep: read(env, 'DEPOSIT_MIN_SWEEP_AMOUNT', usdcAmount.default(100_000n)),
    depositWatchDays: read(env, 'DEPOSIT_WATCH_DAYS', int(1, 3650).default(30)),
    relayerGasLimit: BigInt(read(env, 'RELAYER_GAS_LIMIT', int(100_000, 30_000_000).default(700_000))),
    x402SettleWaitMs: read(env, 'X402_SETTLE_WAIT_MS', int(1_000, 120_000).default(30_000)),
    // Devnet ETH is free and the bench relays hundreds at once (each reserves ~2e15 wei at anvil's 1 gwei).
    relayerDailyBudgetWei: read(env, 'RELAYER_DAILY_BUDGET_WEI', wei.default(devnet ? 10n * 10n ** 18n : 10n ** 17n)),
    gaslessMinAmount: read(env, 'GASLESS_MIN_AMOUNT', usdcAmount.default(500_000n)),
    x402MinAmount: read(env, 'X402_MIN_AMOUNT', usdcAmount.default(10_000n)),
    relayRefusalsPerMinute: read(env, 'RATE_LIMIT_RELAY_REFUSALS_PER_MINUTE', int(1, 10_000).default(10)),
    rpcBatchSize: read(env, 'RPC_BATCH_SIZE', int(0, 1000).default(32)),
    serviceFeeBps: read(env, 'SERVICE_FEE_BPS', int(0, 10000).default(100)),
    serviceTreasury: read(env, 'SERVICE_TREASURY', address.optional()) ?? null,
    // Several comma-separated tokens are all accepted: rotation adds the new one, rolls the instances, then
    // drops the old one (docs/security.md).
    adminToken: read(env, 'ADMIN_TOKEN', z.string().refine((v) => v.split(',').every((t) => t.trim().length >= 24), 'each token must be at least 24 characters').optional()) ?? null,
    // May list the current secret and the previous ones, comma-separated: the first signs sessions and seals; all
    // open what was sealed (stored idempotent answers, derived webhook seal keys) while a rotation rolls out.
    betterAuthSecret: read(env, 'BETTER_AUTH_SECRET', z.string().refine((v) => v.split(',').every((t) => t.trim().length >= 32), 'each secret must be at least 32 characters').optional()) ?? null,
    reserveHoldDays: read(env, 'RESERVE_HOLD_DAYS', int(0, 365).default(7)),
    devnetRpcPort: read(env, 'DEVNET_RPC_PORT', int(1, 65535).default(8545)),
    trustProxyHops: read(env, 'TRUST_PROXY_HOPS', int(0, 10).default(0)),
    logLevel: read(env, 'LOG_LEVEL', z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info')),
    role: role.data,
    operatorLeaseSeconds: read(env, 'OPERATOR_LEASE_SECONDS', int(2, 3600).default(30)),
    operatorTxFault: read(env, 'OPERATOR_TX_FAULT', z.string().regex(/^kill_after_record:[0-9]{1,4}$/, 'must be kill_after_record:<n> (test-only)').optional()) ?? null,
    webhookSealKeys: read(env, 'WEBHOOK_SEAL_KEYS', z.string().optional()
      .transform((v) => (v ?? '').split(',').map((k) => k.trim()).filter((k) => k !== ''))
      .refine((keys) => keys.every((k) => k.length >= 32), 'must be a comma-separated list of keys of at least 32 characters each')),
    webhookDisableAfterDays: read(env, 'WEBHOOK_DISABLE_AFTER_DAYS', int(1, 365).default(5)),
    webhookAttemptRetentionDays: read(env, 'WEBHOOK_ATTEMPT_RETENTION_DAYS', int(1, 3650).default(30)),
    eventRetentionDays: read(env, 'EVENT_RETENTION_DAYS', int(1, 3650).default(30)),
    requestLogRetentionDays: read(env, 'REQUEST_LOG_RETENTION_DAYS', int(1, 3650).default(30)),
    operatorTxAttemptRetentionDays: read(env, 'OPERATOR_TX_ATTEMPT_RETENTION_DAYS', int(1, 3650).default(180)),
    webhookPerEndpoint: read(env, 'WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT', int(1, 1024).default(32)),
    // 1 MiB .. 1 GiB; default 16 MiB (the queue's worst case by rows alone was ~160 MB).
    requestLogQueueMaxBytes: read(env, 'REQUEST_LOG_QUEUE_MAX_BYTES', int(1_048_576, 1_073_741_824).default(16 * 1_048_576)),
    rateLimits: {
      perSecond: read(env, 'RATE_LIMIT_PER_SECOND', int(1, 1_000_000).default(100)),
      burst: read(env, 'RATE_LIMIT_BURST', int(1, 1_000_000).default(200)),
      publicPerSecond: read(env, 'RATE_LIMIT_PUBLIC_PER_SECOND', int(1, 1_000_000).default(20)),
      publicBurst: read(env, 'RATE_LIMIT_PUBLIC_BURST', int(1, 1_000_000).default(60)),
      authPerMinute: read(env, 'RATE_LIMIT_AUTH_PER_MINUTE', int(1, 10_000).default(10)),
    },
  };
  if (!devnet) requireProductionSecrets(config);
  return config;
}

function requireProductionSecrets(config: Config) {
  const required: [keyof Config, string][] = [
    ['databaseUrl', 'DATABASE_URL'],
    ['signerPrivateKey', 'SIGNER_PRIVATE_KEY'],
    ['serviceTreasury', 'SERVICE_TREASURY'],
    ['betterAuthSecret', 'BETTER_AUTH_SECRET'],
  ];
  // Only workers send operator transactions (the API enqueues them): an API instance need not hold the key.
  if (config.role !== 'api') required.splice(2, 0, ['operatorPrivateKey', 'OPERATOR_PRIVATE_KEY']);
  for (const [key, name] of required) {
    if (config[key] === null) throw new ConfigError(name, 'is required when a chain RPC is configured (production)');
  }
  // API instances simulate every relay from the relayer's address, workers send with its key: both need it.
  if (config.gaslessEnabled && config.relayerPrivateKey === null) throw new ConfigError('RELAYER_PRIVATE_KEY', 'is required when GASLESS_ENABLED=true');
}
