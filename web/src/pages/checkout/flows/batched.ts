import { encodeFunctionData } from 'viem';
import { sendCalls, waitForCallsStatus } from 'wagmi/actions';
import { erc20Abi, paymentRouterAbi } from '../../../wallet/abi';
import { FlowFailed, type FlowContext, type FlowResult } from './context';

/**
 * EIP-5792: approve + payOrder as ONE atomic wallet_sendCalls (a smart wallet executes both in one
 * transaction, one confirmation for the buyer), then wallet_getCallsStatus until the bundle is mined.
 */
export async function payBatched(ctx: FlowContext): Promise<FlowResult> {
  const calls = [
    { to: ctx.token, data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [ctx.router, ctx.amount] }) },
    { to: ctx.router, data: encodeFunctionData({ abi: paymentRouterAbi, functionName: 'payOrder', args: [ctx.order, ctx.orderSignature] }) },
  ];
  ctx.onStep('confirm_in_wallet');
  const { id } = await sendCalls(ctx.config, { account: ctx.account, chainId: ctx.chain.id, calls, forceAtomic: true });
  ctx.onStep('batch_pending');
  const status = await waitForCallsStatus(ctx.config, { id, pollingInterval: 1_000, timeout: 10 * 60_000 });
  const hash = status.receipts?.[status.receipts.length - 1]?.transactionHash;
  if (status.status !== 'success' || !hash) throw new FlowFailed('Your wallet could not complete the batched payment; no USDC left your wallet.');
  return { kind: 'tx', hash };
}
