import { getAddress, hashTypedData, type Hex } from 'viem';
import { signTypedData } from 'wagmi/actions';
import { api } from '../../../lib/api';
import type { GaslessTypedData, Relay, TypedData } from '../../../lib/types';
import { FlowFailed, type FlowContext, type FlowResult } from './context';
import { sameAsToken } from './token-domain';

/**
 * Gasless (ERC-3009): the buyer signs USDC's ReceiveWithAuthorization for this order (to = the router,
 * value = the amount, nonce = the order's PayOrder digest, as the service prepared it) and the service's
 * relayer sends payOrderWithAuthorization and pays the gas. Works for a smart wallet too: the token checks
 * its signature through ERC-1271. The page checks the message is for this order and the domain is the
 * token's own before asking the wallet, so a wrong session cannot make the buyer sign for something else.
 */
export async function payGasless(ctx: FlowContext, typed: GaslessTypedData, payOrder: TypedData): Promise<FlowResult> {
  const m = typed.message;
  const domain = { ...typed.domain, verifyingContract: getAddress(typed.domain.verifyingContract) };
  const { EIP712Domain: _d, ...orderTypes } = payOrder.types;
  const orderDigest = hashTypedData({ domain: payOrder.domain as never, types: orderTypes, primaryType: 'PayOrder', message: ctx.order });
  const forThisOrder = m.nonce.toLowerCase() === orderDigest && getAddress(m.to) === getAddress(ctx.router) && BigInt(m.value) === ctx.amount;
  if (!forThisOrder || domain.verifyingContract !== getAddress(ctx.token) || domain.chainId !== ctx.chain.id) {
    throw new FlowFailed('The gasless authorization does not match this order.');
  }
  if (!(await sameAsToken(ctx.client, domain))) throw new FlowFailed('The gasless authorization is not for this token.');
  const message = { from: ctx.account, to: getAddress(m.to), value: BigInt(m.value), validAfter: BigInt(m.validAfter), validBefore: BigInt(m.validBefore), nonce: m.nonce as Hex };
  const types = { ReceiveWithAuthorization: typed.types.ReceiveWithAuthorization };
  ctx.onStep('signing');
  const signature = await signTypedData(ctx.config, { account: ctx.account, domain, types, primaryType: 'ReceiveWithAuthorization', message });
  ctx.onStep('relaying');
  const relay = await api.post<Relay>(`/v1/checkout/sessions/${encodeURIComponent(ctx.sessionToken)}/relay`, {
    from: ctx.account,
    valid_after: m.validAfter,
    valid_before: m.validBefore,
    nonce: m.nonce,
    signature,
  });
  return { kind: 'relay', relay };
}

/** A relay the service gave up on (its simulation or transaction failed): the page tries the next method. */
export function relayFailed(relay: Relay | null | undefined): boolean {
  return Boolean(relay && (relay.error || ['failed', 'reverted', 'cancelled', 'dropped'].includes(relay.state)));
}
