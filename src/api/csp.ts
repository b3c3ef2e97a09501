import { base, baseSepolia } from 'viem/chains';
import type { Config } from '../config.js';

/**
 * Content-Security-Policy of the HTML pages this server sends (dashboard, /checkout/*, /onboard/*, /docs).
 * Scripts only from this origin (Vite's build and the docs page have no inline script), never eval; nothing may
 * frame a page (checkout is reached by full-page redirect only, SPEC); no plugins, no <base>, forms post here only.
 * Images may be data: URIs (the icons wallets announce with EIP-6963, swagger-ui's CSS).
 */
export function contentSecurityPolicy(opts: { connect: readonly string[]; inlineStyles: boolean }): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    // Coinbase's wallet SDK adds a <style> element for its dialogs (popup blocked, WalletLink): only the hosted
    // app pages allow that, never scripts. Style *properties* set by React are not governed by CSP.
    `style-src 'self'${opts.inlineStyles ? " 'unsafe-inline'" : ''}`,
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src ${["'self'", ...new Set(opts.connect)].join(' ')}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The public RPC each chain's pages read from when the service hands them none (viem's chain default). */
const DEFAULT_RPC: Record<number, string | undefined> = {
  [baseSepolia.id]: baseSepolia.rpcUrls.default.http[0],
  [base.id]: base.rpcUrls.default.http[0],
};

/** Coinbase Smart Wallet (wallet/coinbase.ts) answers EIP-5792 wallet_getCallsStatus from here. */
const COINBASE_WALLET_RPC = 'https://rpc.wallet.coinbase.com';

/**
 * Where the hosted pages' wallet code sends JSON-RPC. On the devnet the checkout page is handed the anvil RPC
 * (session `chain.rpc_url`); in production none (a provider URL may hold a key), so the page reads from the chain's
 * public RPC (web/src/wallet/config.ts `chainFromSession`).
 */
export function walletRpcOrigins(config: Pick<Config, 'env' | 'chains'>): string[] {
  const urls = [...config.chains.values()].map((c) => (config.env === 'devnet' ? c.rpcUrl : DEFAULT_RPC[c.chainId]));
  return [...urls.filter((u): u is string => u !== undefined).map((u) => new URL(u).origin), COINBASE_WALLET_RPC];
}
