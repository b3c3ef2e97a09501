import type { Page } from 'playwright-core';
import { createWalletClient, defineChain, erc20Abi, http, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { paymentRouterAbi } from '../../../src/chain/artifacts/PaymentRouter.js';
import { payOrderFromJson, toBytes32Id } from '../../../src/chain/eip712.js';
import type { DevnetJson } from '../../helpers/service-process.js';
import type { Api } from './api.js';
import { devnetClients } from './chain.js';
import { TestWallet } from './wallet.js';

/**
 * What the dashboard tests need around the shared test wallet (helpers/wallet.ts, owned by the checkout
 * tests): a buyer paying an API order outside the browser, the router's refund state, and signing in.
 */
export function dashboardChain(devnet: DevnetJson) {
  const base = devnetClients(devnet);
  const chain = defineChain({ id: devnet.chain_id, name: 'devnet', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [devnet.rpc_url] } } });

  /** As a buyer's wallet does: approve pay_to, then payOrder(eip712.message, signature). */
  async function payOrder(privateKey: Hex, order: { pay_to: string; eip712: { message: Record<string, unknown> }; signature: string }) {
    const wallet = createWalletClient({ account: privateKeyToAccount(privateKey), chain, transport: http(devnet.rpc_url) });
    const message = payOrderFromJson(order.eip712 as never);
    const approve = await wallet.writeContract({ address: message.token, abi: erc20Abi, functionName: 'approve', args: [order.pay_to as Address, message.amount] });
    await base.publicClient.waitForTransactionReceipt({ hash: approve });
    const pay = await wallet.writeContract({ address: order.pay_to as Address, abi: paymentRouterAbi, functionName: 'payOrder', args: [message, order.signature as Hex] });
    const receipt = await base.publicClient.waitForTransactionReceipt({ hash: pay });
    if (receipt.status !== 'success') throw new Error('payOrder reverted');
    return pay;
  }

  /** The router's view of a refund id ("re_…" → its bytes32 id, as the service derives it). */
  async function refundOnChain(refundId: string) {
    const id = toBytes32Id(refundId);
    const [used, cancelled] = await Promise.all([
      base.publicClient.readContract({ address: devnet.router, abi: paymentRouterAbi, functionName: 'refundUsed', args: [id] }),
      base.publicClient.readContract({ address: devnet.router, abi: paymentRouterAbi, functionName: 'refundCancelled', args: [id] }),
    ]);
    return { used, cancelled };
  }

  return { ...base, payOrder, refundOnChain, chain };
}

/** Polls the API until `pick(body)` is truthy (the indexer and the operator move things on chain time). */
export async function until<T>(api: Api, path: string, pick: (body: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const res = await api<T>('GET', path);
    if (res.status === 200 && pick(res.body)) return res.body;
    if (Date.now() > end) throw new Error(`timed out waiting on ${path}: ${JSON.stringify(res.body)}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

export async function signIn(page: Page, baseUrl: string, email: string, password = 'correct horse battery staple') {
  await page.goto(baseUrl);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 1, name: 'Home' }).waitFor();
}

export function fundingWallet(devnet: DevnetJson, index: number) {
  const account = devnet.accounts[index]!;
  return new TestWallet({ privateKey: account.private_key, rpcUrl: devnet.rpc_url, chainId: devnet.chain_id });
}
