import { writeContract } from 'wagmi/actions';
import { erc20Abi, paymentRouterAbi } from '../../../wallet/abi';
import type { FlowContext, FlowResult } from './context';

/** Step one of the classic flow: approve exactly the amount to the router, wait for it to be mined. */
export async function approveRouter(ctx: FlowContext): Promise<void> {
  ctx.onStep('confirm_in_wallet');
  const hash = await writeContract(ctx.config, { address: ctx.token, abi: erc20Abi, functionName: 'approve', args: [ctx.router, ctx.amount], chainId: ctx.chain.id, account: ctx.account });
  ctx.onStep('approve_pending');
  const receipt = await ctx.client.waitForTransactionReceipt({ hash, pollingInterval: 1_000 });
  if (receipt.status !== 'success') throw new Error('The approval transaction failed on-chain.');
}

/** Step two: payOrder with the service-signed message, simulated first so a revert becomes words. */
export async function payOrder(ctx: FlowContext): Promise<FlowResult> {
  const args = [ctx.order, ctx.orderSignature] as const;
  await ctx.client.simulateContract({ account: ctx.account, address: ctx.router, abi: paymentRouterAbi, functionName: 'payOrder', args });
  ctx.onStep('confirm_in_wallet');
  const hash = await writeContract(ctx.config, { address: ctx.router, abi: paymentRouterAbi, functionName: 'payOrder', args, chainId: ctx.chain.id, account: ctx.account });
  return { kind: 'tx', hash };
}
