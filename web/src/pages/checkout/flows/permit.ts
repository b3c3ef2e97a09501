import { parseSignature } from 'viem';
import { signTypedData, writeContract } from 'wagmi/actions';
import { erc20Abi, paymentRouterAbi } from '../../../wallet/abi';
import { FlowFailed, type FlowContext, type FlowResult } from './context';
import { readTokenDomain } from './token-domain';

const PERMIT_TYPES = {
  Permit: [
    { name: 'owner', type: 'address' },
    { name: 'spender', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
} as const;

/**
 * One transaction: an EIP-2612 permit (the domain read from the token and checked against its
 * DOMAIN_SEPARATOR) and payOrderWithPermit. An EOA only: the router takes v/r/s, which a contract wallet
 * cannot produce, so the page does not offer it to one.
 */
export async function payWithPermit(ctx: FlowContext): Promise<FlowResult> {
  const [domain, nonce] = await Promise.all([
    readTokenDomain(ctx.client, ctx.token, ctx.chain.id),
    ctx.client.readContract({ address: ctx.token, abi: erc20Abi, functionName: 'nonces', args: [ctx.account] }),
  ]);
  if (!domain) throw new FlowFailed('This token does not support permit signatures.');
  const deadline = ctx.order.deadline;
  ctx.onStep('signing');
  const permit = await signTypedData(ctx.config, {
    account: ctx.account,
    domain,
    types: PERMIT_TYPES,
    primaryType: 'Permit',
    message: { owner: ctx.account, spender: ctx.router, value: ctx.amount, nonce, deadline },
  });
  const { r, s, v, yParity } = parseSignature(permit);
  const args = [ctx.order, ctx.orderSignature, deadline, Number(v ?? BigInt(yParity + 27)), r, s] as const;
  await ctx.client.simulateContract({ account: ctx.account, address: ctx.router, abi: paymentRouterAbi, functionName: 'payOrderWithPermit', args });
  ctx.onStep('confirm_in_wallet');
  const hash = await writeContract(ctx.config, { address: ctx.router, abi: paymentRouterAbi, functionName: 'payOrderWithPermit', args, chainId: ctx.chain.id, account: ctx.account });
  return { kind: 'tx', hash };
}
