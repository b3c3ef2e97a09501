import { BaseError, type Hex } from 'viem';
import { AppError } from '../../lib/errors.js';
import { serializeOrder } from '../orders/serialize.js';
import type { OrderRow } from '../orders/repo.js';
import type { X402Deps } from './context.js';
import { encodeHeader, type PaymentRequired } from './requirements.js';

/** An x402 answer as the route sends it: status, the PAYMENT-* headers, the JSON body. */
export type X402Answer = { status: 200 | 402; headers: Record<string, string>; body: unknown };

/**
 * What the payer (and the SDK) gets back: the order as it stands when the answer leaves and its split, the same
 * numbers the router paid out. A payment just mined is still `pending_payment` until the indexer sees it at the
 * chain's depth: `tx_hash` (the settlement, null when nothing was mined) and `confirmations_required` say so, in
 * place of a state the order does not have yet.
 */
export const receiptOf = (order: OrderRow, settlement: { txHash: Hex | null; confirmations: number }) => {
  const o = serializeOrder(order);
  return {
    object: 'x402_receipt' as const, order_id: o.id, state: o.state, amount: o.amount, token_address: o.token_address, computed_split: o.computed_split,
    tx_hash: settlement.txHash, confirmations_required: settlement.confirmations,
  };
};

/** The confirmation depth at which the indexer confirms an order on this chain. */
export const depthOf = (deps: Pick<X402Deps, 'config'>, chainId: number) => deps.config.chains.get(chainId)?.confirmations ?? 1;

/** The v2 SettleResponse (PAYMENT-RESPONSE header, base64 JSON). */
export const settleResponse = (r: { success: boolean; errorReason?: string; transaction: Hex | null; network: string; payer: string }) => ({
  success: r.success, ...(r.errorReason !== undefined ? { errorReason: r.errorReason } : {}), transaction: r.transaction ?? '', network: r.network, payer: r.payer,
});

/** 402 with PAYMENT-REQUIRED (and the same JSON body): an offer, or, with `error`, a refused payment. */
export function paymentRequiredAnswer(required: PaymentRequired, extra: Record<string, string> = {}, message?: string): X402Answer {
  return {
    status: 402, headers: { 'PAYMENT-REQUIRED': encodeHeader(required), 'Cache-Control': 'no-store', ...extra },
    body: message === undefined ? required : { ...required, message },
  };
}

/** A chain read that failed for a reason other than a revert (node unreachable): 503, nothing written. */
export async function onChain<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof AppError || !(err instanceof BaseError)) throw err;
    throw new AppError('service_unavailable', 'The chain could not be reached to check this payment; nothing was sent, try again.');
  }
}
