/**
 * An agent paying the endpoint with the stock x402 client, unmodified: `@x402/fetch` + `@x402/evm`'s exact
 * scheme with a viem account. The only Trisettle-specific line is none: configuration is the client's own.
 *
 *   npx tsx examples/x402-paid-endpoint/agent.ts [url]      (default http://127.0.0.1:4021/forecast)
 */
import { pathToFileURL } from 'node:url';
import type { Address, Hex, LocalAccount } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { decodePaymentResponseHeader, wrapFetchWithPaymentFromConfig } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm';
import { devnetFile, readDevnet } from '../platform-integration/devnet.js';

export type AgentOptions = {
  /** CAIP-2 network the agent pays on: eip155:84532 (Base Sepolia, and the devnet), eip155:8453 (Base). */
  network?: `eip155:${number}`;
  /**
   * USDC's address when it is not on @x402/evm's built-in list (a devnet whose USDC is not at Base Sepolia's
   * 0x036CbD53842c5426634e7929541eC2318f3dCF7e): the stock client refuses unlisted tokens unless opted in.
   */
  usdc?: Address;
  /** Largest payment the agent accepts, in dollars (the stock default is $1). */
  maxUsd?: number;
  /** The fetch underneath (default the global one). */
  fetch?: typeof globalThis.fetch;
};

/** fetch that pays 402s: the stock client's configuration, nothing else. */
export function payingFetch(account: LocalAccount, o: AgentOptions = {}) {
  const network = o.network ?? 'eip155:84532';
  const maxUsd = o.maxUsd ?? 1;
  return wrapFetchWithPaymentFromConfig(o.fetch ?? fetch, {
    schemes: [{ network, client: new ExactEvmScheme(account) }],
    spendControls: {
      maxAmountPerPayment: `$${maxUsd}`, // listed USDC (Base, Base Sepolia): a dollar cap
      // An unlisted token needs its own cap, in base units (USDC: 6 decimals).
      ...(o.usdc ? { allowedAssets: [{ network, asset: o.usdc, maxAmountPerPayment: String(BigInt(Math.round(maxUsd * 1e6))) }] } : {}),
    },
  });
}

async function main() {
  const url = process.argv[2] ?? 'http://127.0.0.1:4021/forecast';
  const env = process.env;
  const devnet = env.BUYER_PRIVATE_KEY ? undefined : readDevnet(devnetFile(env));
  const account = privateKeyToAccount((env.BUYER_PRIVATE_KEY ?? devnet!.accounts[0]!.private_key) as Hex);
  const usdc = (env.USDC_ADDRESS ?? devnet?.usdc) as Address | undefined;
  const res = await payingFetch(account, { usdc, maxUsd: Number(env.MAX_USD ?? 1) })(url);
  console.log(`[agent] ${res.status} ${await res.text()}`);
  const receipt = res.headers.get('PAYMENT-RESPONSE');
  if (receipt) console.log('[agent] PAYMENT-RESPONSE', decodePaymentResponseHeader(receipt));
  if (!res.ok) process.exit(1);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
