import { createConfig, createStorage, http, type Config } from 'wagmi';
import { base, baseSepolia } from 'wagmi/chains';
import { injected } from 'wagmi/connectors';
import { defineChain, type Chain } from 'viem';
import { IS_DEVNET } from '../lib/chains';
import { lazyCoinbaseWallet } from './coinbase';

/**
 * wagmi config for one page. Wallets are found by EIP-6963 discovery (every injected wallet that announces
 * itself becomes a connector); a legacy window.ethereum-only wallet is offered through the generic
 * `injected()` connector; Coinbase Smart Wallet through Coinbase's SDK (wallet/coinbase.ts). The checkout page passes the session's chain so reads go to the RPC the service
 * names and `wallet_addEthereumChain` offers that RPC to the wallet.
 */
export type SessionChain = { chain_id: number; name: string; rpc_url: string | null; block_explorer_url: string | null };

export function chainFromSession(c: SessionChain): Chain {
  const known = c.chain_id === baseSepolia.id ? baseSepolia : c.chain_id === base.id ? base : null;
  return defineChain({
    id: c.chain_id,
    name: c.name || known?.name || `Chain ${c.chain_id}`,
    nativeCurrency: known?.nativeCurrency ?? { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: c.rpc_url ? [c.rpc_url] : [...(known?.rpcUrls.default.http ?? [])] } },
    blockExplorers: c.block_explorer_url ? { default: { name: 'Explorer', url: c.block_explorer_url } } : undefined,
    testnet: c.chain_id !== base.id,
  });
}

export function makeWagmiConfig(chain?: Chain): Config {
  const chains = [chain ?? baseSepolia] as const;
  // Coinbase Smart Wallet works only on the public networks Coinbase runs it on; the devnet's chain (even with a Base
  // chain id) lives on this machine, where its popup could never send a transaction, so it is not offered there.
  const smartWallet = !IS_DEVNET && (chains[0].id === base.id || chains[0].id === baseSepolia.id);
  return createConfig({
    chains,
    connectors: [injected({ shimDisconnect: true }), ...(smartWallet ? [lazyCoinbaseWallet('Trisettle')] : [])],
    multiInjectedProviderDiscovery: true,
    transports: { [chains[0].id]: http(chain?.rpcUrls.default.http[0]) },
    storage: createStorage({ storage: typeof window !== 'undefined' ? window.localStorage : undefined, key: 'trisettle.wallet' }),
    ssr: false,
  });
}
