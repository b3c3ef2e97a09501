import { erc20Abi, parseEventLogs, type Address, type Hex, type LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { paymentRouterAbi } from '../../src/chain/artifacts/PaymentRouter.js';
import { payOrderFromJson } from '../../src/chain/eip712.js';
import type { Config } from '../../src/config.js';
import { authoriseServiceKeys, startTestChain, type TestChain } from './chain.js';
import { createHarness, type Harness } from './harness.js';

/** A harness wired to a real anvil chain with the real router: the service signs, buyers pay on chain. */
export async function createFlow(opts: { confirmations?: number; config?: Partial<Config>; buyers?: number } = {}) {
  const chain = await startTestChain({ buyers: opts.buyers ?? 3 });
  const { signerPrivateKey, operatorPrivateKey } = await authoriseServiceKeys(chain);
  const h = await createHarness({
    chains: [{ chainId: chain.chainId, rpcUrl: chain.rpcUrl, router: chain.router, usdc: chain.usdc, subscriptionManager: chain.subscriptionManager, depositFactory: chain.depositFactory, confirmations: opts.confirmations ?? 1 }],
    config: {
      signerPrivateKey,
      operatorPrivateKey,
      serviceTreasury: chain.treasury,
      ...opts.config,
    },
  });
  return { chain, h, close: async () => { await h.services.indexer.stop(); await h.close(); await chain.stop(); } };
}

export type Flow = Awaited<ReturnType<typeof createFlow>>;

export const freshAddress = (): Address => privateKeyToAccount(generatePrivateKey()).address;

export async function balanceOf(chain: TestChain, who: Address) {
  return chain.publicClient.readContract({ address: chain.usdc, abi: erc20Abi, functionName: 'balanceOf', args: [who] });
}

/** What a buyer's wallet does with an API order: approve pay_to, then payOrder(eip712.message, signature). Nothing else. */
export async function payAsBuyer(chain: TestChain, buyer: LocalAccount, order: { pay_to: Address; amount: string; eip712: { message: Record<string, unknown> }; signature: Hex }) {
  const wallet = chain.walletClientFor(buyer);
  const message = payOrderFromJson(order.eip712 as never);
  const approve = await wallet.writeContract({ address: message.token, abi: erc20Abi, functionName: 'approve', args: [order.pay_to, message.amount] });
  await chain.confirm(approve);
  const pay = await wallet.writeContract({ address: order.pay_to, abi: paymentRouterAbi, functionName: 'payOrder', args: [message, order.signature] });
  const receipt = await chain.confirm(pay);
  return { hash: pay, receipt, paid: parseEventLogs({ abi: paymentRouterAbi, logs: receipt.logs, eventName: 'OrderPaid' }) };
}

export async function setupPlatform(h: Harness, platformFeeBps = 500, reserveBps = 1000) {
  const platformWallet = freshAddress();
  const merchantWallet = freshAddress();
  const p = await h.platform({ platform_wallet: platformWallet, platform_fee_bps: platformFeeBps });
  const m = await h.request('POST', '/v1/onboarding/merchants', {
    key: p.secretKey, body: { external_id: `m_${merchantWallet.slice(2, 10)}`, name: 'Chain Goods', merchant_wallet: merchantWallet, chain_id: 84532, reserve_bps: reserveBps },
  });
  if (m.status !== 201) throw new Error(m.text);
  return { p, m: m.body, platformWallet, merchantWallet };
}

/**
 * Runs the operator sender until every intent it holds is resolved: simulate + record + broadcast, mine a
 * block, note the receipt, and deliver the outcome at the chain's confirmation depth.
 */
export async function driveOperator(h: Harness, chain: TestChain, rounds = 8): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    await h.services.operatorTxs.runOnce(chain.chainId);
    const open = (await h.services.operatorTxs.list(chain.chainId)).filter((t) => t.state !== 'done' && t.state !== 'rejected');
    if (open.length === 0) return;
    await chain.mine(1);
  }
  throw new Error('operator transactions still open after driving the sender');
}
