import { getAddress, type Address } from 'viem';
import { AppError } from '../../lib/errors.js';
import { formatUnits } from '../../lib/money.js';
import { payOrderOf } from '../relay/typed-data.js';
import type { TokenDomain } from '../relay/token-domain.js';
import { ATTRIBUTE_ROOM_SECONDS, MAX_TIMEOUT_SECONDS, MIN_TIMEOUT_SECONDS, x402Url, type X402Deps } from './context.js';
import type { SessionWithOrder } from './repo.js';

/** x402 v2 PaymentRequirements (one `accepts` entry), the `exact` scheme on EVM. */
export type PaymentRequirements = {
  scheme: 'exact'; network: string; amount: string; asset: Address; payTo: Address; maxTimeoutSeconds: number;
  extra: { name: string; version: string; trisettle_session: string; trisettle_order: string };
};
export type PaymentRequired = {
  x402Version: 2; error?: string;
  resource: { url: string; description: string; mimeType: string };
  accepts: PaymentRequirements[];
};

/**
 * A session's order is offered while it is open on the chain's clock with at least MIN_TIMEOUT_SECONDS + ATTRIBUTE_ROOM_SECONDS left.
 * An expired or cancelled one is 410 session_expired, a paid one 409 order_not_payable: neither is a 402, so the
 * stock client (@x402/fetch returns every non-402 answer as it is) never signs for it.
 */
export function checkPayable(found: SessionWithOrder, now: bigint): void {
  const { session, order } = found;
  if (session.state === 'completed' || PAID.includes(order.state)) {
    throw new AppError('order_not_payable', `Checkout session ${session.id} is paid (order ${order.id} is ${order.state}).`);
  }
  if (session.state !== 'open' || order.state !== 'pending_payment' || remaining(found, now) < BigInt(MIN_TIMEOUT_SECONDS) + ATTRIBUTE_ROOM_SECONDS) {
    throw new AppError('session_expired', `Checkout session ${session.id} has expired or was cancelled; it can no longer be paid.`);
  }
}

const PAID: readonly string[] = ['authorized', 'confirmed', 'partially_refunded', 'refunded'];
const deadlineOf = (found: SessionWithOrder): bigint => payOrderOf(found.order).message.deadline;
const remaining = (found: SessionWithOrder, now: bigint): bigint => deadlineOf(found) - now;

/** The latest validBefore accepted: ATTRIBUTE_ROOM_SECONDS before the order's deadline (room for attributeTransfer after a front-run). */
export const validBeforeLimit = (found: SessionWithOrder): bigint => deadlineOf(found) - ATTRIBUTE_ROOM_SECONDS;

/** maxTimeoutSeconds: at most MAX_TIMEOUT_SECONDS, lapsing ATTRIBUTE_ROOM_SECONDS before the order's deadline (chain clock). */
export function maxTimeoutOf(found: SessionWithOrder, now: bigint): number {
  const left = Number(remaining(found, now) - ATTRIBUTE_ROOM_SECONDS);
  return Math.max(0, Math.min(MAX_TIMEOUT_SECONDS, left - MIN_TIMEOUT_SECONDS));
}

/** What this session requires of an x402 payment: exactly the order's amount of its token, to the router. */
export function requirementsOf(found: SessionWithOrder, domain: TokenDomain, now: bigint): PaymentRequirements {
  const { order, session } = found;
  return {
    scheme: 'exact', network: `eip155:${order.chain_id}`, amount: order.amount.toString(), asset: getAddress(order.token_address),
    payTo: payOrderOf(order).domain.verifyingContract, maxTimeoutSeconds: maxTimeoutOf(found, now),
    extra: { name: domain.name, version: domain.version, trisettle_session: session.id, trisettle_order: order.id },
  };
}

export function paymentRequiredOf(deps: Pick<X402Deps, 'config'>, found: SessionWithOrder, token: string | null, domain: TokenDomain, now: bigint, error?: string): PaymentRequired {
  const { order, session } = found;
  const url = token === null ? `${deps.config.publicBaseUrl}/v1/orders/${order.id}` : x402Url(deps.config.publicBaseUrl, token);
  const description = `${formatUnits(order.amount)} USDC to ${session.merchant_name} (order ${order.order_no}) via ${session.platform_name}, settled by Trisettle`;
  return {
    x402Version: 2, ...(error !== undefined ? { error } : {}),
    resource: { url, description, mimeType: 'application/json' },
    accepts: [requirementsOf(found, domain, now)],
  };
}

/** The v2 header encoding: base64 of the JSON text (PAYMENT-REQUIRED, PAYMENT-RESPONSE). */
export const encodeHeader = (value: unknown): string => Buffer.from(JSON.stringify(value), 'utf8').toString('base64');
