import { createPublicClient, http, type Address, type PublicClient } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import type { ChainConfig, Config } from '../../config.js';
import { AppError } from '../../lib/errors.js';
import { createChainClock, type ChainClock } from './clock.js';

export type ChainRuntime = ChainConfig & {
  name: string;
  publicClient: PublicClient;
  /**
   * The same node without JSON-RPC batching, for eth_getLogs: a range's two log reads are the largest answers
   * the service asks for, and batched they would come back as one body, twice the size, under one size limit
   * (viem's 10 MiB), and be decoded only when both are complete.
   */
  logsClient: PublicClient;
  blockExplorerUrl: string | null;
  clock: ChainClock;
};

/**
 * The largest eth_getLogs answer read (viem's default is 10 MiB): a dense range past TARGET_LOGS still fits once
 * instead of being refused after it was sent and asked again at half the span. A range is sized to ~TARGET_LOGS
 * logs (~5 MB) after the first one, so this bounds only that first read of a dense stretch.
 */
const LOGS_RESPONSE_MAX_BYTES = 32 * 2 ** 20;

const NAMES: Record<number, { name: string; explorer: string | null }> = {
  84532: { name: 'Base Sepolia', explorer: 'https://sepolia.basescan.org' },
  8453: { name: 'Base', explorer: 'https://basescan.org' },
};

/**
 * The chains this deployment serves, with clients and keys built once at start (no per-request key
 * derivation). A chain without configuration is refused with 422 unsupported_chain.
 */
export function createChainsService(config: Config) {
  const runtimes = new Map<number, ChainRuntime>();
  for (const [id, c] of config.chains) {
    const devnet = config.env === 'devnet';
    // Calls made in the same tick (concurrent relays' simulations, the sender's broadcasts) travel as one batch.
    const batch = config.rpcBatchSize > 0 ? { batchSize: config.rpcBatchSize } : false;
    const rpc = { timeout: 10_000, retryCount: 2 };
    const publicClient = createPublicClient({ transport: http(c.rpcUrl, { ...rpc, batch }) }) as PublicClient;
    const logsClient = createPublicClient({ transport: http(c.rpcUrl, { ...rpc, maxResponseBodySize: LOGS_RESPONSE_MAX_BYTES }) }) as PublicClient;
    runtimes.set(id, {
      ...c,
      name: devnet ? `Local devnet (chain ${id})` : (NAMES[id]?.name ?? `Chain ${id}`),
      blockExplorerUrl: devnet ? null : (NAMES[id]?.explorer ?? null),
      publicClient,
      logsClient,
      clock: createChainClock(publicClient),
    });
  }
  const signer: PrivateKeyAccount | null = config.signerPrivateKey ? privateKeyToAccount(config.signerPrivateKey) : null;
  const operator: PrivateKeyAccount | null = config.operatorPrivateKey ? privateKeyToAccount(config.operatorPrivateKey) : null;
  const relayer: PrivateKeyAccount | null = config.relayerPrivateKey ? privateKeyToAccount(config.relayerPrivateKey) : null;

  return {
    signer,
    operator,
    relayer,
    list: () => [...runtimes.values()],
    get(chainId: number): ChainRuntime {
      const rt = runtimes.get(chainId);
      if (!rt) throw new AppError('unsupported_chain', `Chain ${chainId} is not configured on this deployment.`, 'chain_id');
      return rt;
    },
    requireSigner(): PrivateKeyAccount {
      if (!signer) throw new AppError('service_unavailable', 'Order signing is not configured (SIGNER_PRIVATE_KEY).');
      return signer;
    },
    routerOf: (chainId: number): Address => runtimes.get(chainId)?.router as Address,
  };
}

export type ChainsService = ReturnType<typeof createChainsService>;
