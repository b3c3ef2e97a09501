import { createPublicClient, createWalletClient, defineChain, erc20Abi, http, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { DevnetJson } from '../../helpers/service-process.js';

export function devnetClients(devnet: DevnetJson) {
  const chain = defineChain({ id: devnet.chain_id, name: 'devnet', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [devnet.rpc_url] } } });
  const publicClient = createPublicClient({ chain, transport: http(devnet.rpc_url), pollingInterval: 250 });
  const usdcBalance = (owner: Address) => publicClient.readContract({ address: devnet.usdc, abi: erc20Abi, functionName: 'balanceOf', args: [owner] });
  const balances = async (owners: Record<string, Address>) => {
    const out: Record<string, bigint> = {};
    for (const [k, a] of Object.entries(owners)) out[k] = await usdcBalance(a);
    return out;
  };
  /** As a returning buyer would have: an allowance for the router set outside the checkout page. */
  const approveRouter = async (privateKey: Hex, amount: bigint) => {
    const wallet = createWalletClient({ account: privateKeyToAccount(privateKey), chain, transport: http(devnet.rpc_url) });
    const hash = await wallet.writeContract({ address: devnet.usdc, abi: erc20Abi, functionName: 'approve', args: [devnet.router, amount] });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== 'success') throw new Error('approve reverted');
  };
  return { publicClient, usdcBalance, balances, approveRouter };
}
