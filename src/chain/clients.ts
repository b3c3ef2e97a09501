/**
 * viem client factories. 84532 → Base Sepolia, 8453 → Base; `devnet: true` gives a plain local chain
 * object with the same id (anvil is not an OP-stack node, so Base's formatters and contracts don't apply).
 */
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  http,
  type Account,
  type Chain,
  type HttpTransport,
  type PublicClient,
  type TestClient,
  type WalletClient,
} from 'viem';
import { base, baseSepolia } from 'viem/chains';

export const DEVNET_CHAIN_ID = 84532;

export type ChainPublicClient = PublicClient<HttpTransport, Chain>;
export type ChainWalletClient = WalletClient<HttpTransport, Chain, Account>;
export type AnvilTestClient = TestClient<'anvil', HttpTransport, Chain>;

export type ChainClientOptions = {
  rpcUrl: string;
  chainId: number;
  /** A local anvil devnet (fast polling, no Base-specific chain config). */
  devnet?: boolean;
};

export function devnetChain(rpcUrl: string, chainId: number = DEVNET_CHAIN_ID): Chain {
  return defineChain({
    id: chainId,
    name: `Local devnet (chain ${chainId})`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
    testnet: true,
  });
}

export function chainFor({ rpcUrl, chainId, devnet = false }: ChainClientOptions): Chain {
  if (devnet) return devnetChain(rpcUrl, chainId);
  if (chainId === baseSepolia.id) return baseSepolia;
  if (chainId === base.id) return base;
  return defineChain({
    id: chainId,
    name: `Chain ${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}

// Public RPCs rate-limit and hiccup: bounded timeouts and a few retries with backoff, never unbounded waits.
function transport(rpcUrl: string): HttpTransport {
  return http(rpcUrl, { timeout: 15_000, retryCount: 3, retryDelay: 300 });
}

// Devnet mines a block a second; receipts are polled 4× a block. Base makes a block every 2 s.
const pollingInterval = (devnet: boolean | undefined) => (devnet ? 250 : 1_000);

export function makePublicClient(opts: ChainClientOptions): ChainPublicClient {
  return createPublicClient({
    chain: chainFor(opts),
    transport: transport(opts.rpcUrl),
    pollingInterval: pollingInterval(opts.devnet),
  });
}

export function makeWalletClient(opts: ChainClientOptions & { account: Account }): ChainWalletClient {
  return createWalletClient({
    account: opts.account,
    chain: chainFor(opts),
    transport: transport(opts.rpcUrl),
    pollingInterval: pollingInterval(opts.devnet),
  });
}

/** anvil's cheat RPCs (setBalance, mine, increaseTime, …): devnet and tests only. */
export function makeAnvilClient(rpcUrl: string, chainId: number = DEVNET_CHAIN_ID): AnvilTestClient {
  return createTestClient({ mode: 'anvil', chain: devnetChain(rpcUrl, chainId), transport: transport(rpcUrl) });
}
