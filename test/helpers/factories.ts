import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { ChainConfig, Config } from '../../src/config.js';
import type { Harness } from './harness.js';

/**
 * A chain configuration for API-only tests: orders are signed for a router address, no RPC is called.
 * Flow tests use a real anvil chain instead (test/helpers/chain.ts).
 */
export const FAKE_ROUTER = '0x5FbDB2315678afecb367f032d93F642f64180aa3' as const;
export const FAKE_USDC = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512' as const;
export const FAKE_SUBSCRIPTION_MANAGER = '0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0' as const;

export function fakeChain(): { chains: ChainConfig[]; config: Partial<Config> } {
  const signerPrivateKey = generatePrivateKey();
  return {
    chains: [{ chainId: 84532, rpcUrl: 'http://127.0.0.1:9', router: FAKE_ROUTER, usdc: FAKE_USDC, subscriptionManager: FAKE_SUBSCRIPTION_MANAGER, confirmations: 1 }],
    config: { signerPrivateKey, serviceTreasury: privateKeyToAccount(generatePrivateKey()).address },
  };
}

export const WALLETS = {
  merchant: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  merchant2: '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65',
  platform: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
} as const;

let seq = 0;
export async function merchant(h: Harness, key: string, body: Record<string, unknown> = {}) {
  const res = await h.request('POST', '/v1/onboarding/merchants', {
    key,
    body: { external_id: `m_${++seq}_${Date.now()}`, name: 'Blue Bottle Goods', merchant_wallet: WALLETS.merchant, chain_id: 84532, reserve_bps: 1000, ...body },
  });
  if (res.status !== 201) throw new Error(`merchant failed: ${res.status} ${res.text}`);
  return res.body;
}

export async function order(h: Harness, key: string, merchantExternalId: string, body: Record<string, unknown> = {}) {
  const res = await h.request('POST', '/v1/orders', {
    key,
    body: { merchant_id: merchantExternalId, order_no: `o_${++seq}_${Date.now()}`, chain_id: 84532, token: 'USDC', amount: '25.00', ...body },
  });
  if (res.status !== 201) throw new Error(`order failed: ${res.status} ${res.text}`);
  return res.body;
}
