import type { Selectable } from 'kysely';
import type { CheckoutSessionsTable } from '../../db/schema.js';
import type { ChainRuntime } from '../chains/service.js';
import type { OrderRow } from '../orders/repo.js';
import { serializeOrder } from '../orders/serialize.js';
import type { GaslessView } from '../relay/gasless-view.js';
import type { sessionsRepo } from './repo.js';

export type SessionRow = Selectable<CheckoutSessionsTable>;

/** A session's x402 pay URL (docs/x402.md): the same bearer token as the hosted page, under /x402/. */
export const x402Url = (publicBaseUrl: string, sessionToken: string): string => `${publicBaseUrl}/x402/${sessionToken}`;

export const serializeSession = (s: SessionRow, token: string, url: string, x402Url: string) => ({
  id: s.id,
  object: 'checkout_session' as const,
  session_token: token,
  url,
  x402_url: x402Url,
  state: s.state,
  order_id: s.order_id,
  expires_at: s.expires_at.toISOString(),
  success_url: s.success_url,
  cancel_url: s.cancel_url,
  payer_address: s.payer_address,
  fee_display: s.fee_display,
  late_payment: s.late_payment,
  created_at: s.created_at.toISOString(),
});

type PublicRead = NonNullable<Awaited<ReturnType<typeof sessionsRepo.findPublic>>>;

/**
 * The public read for the hosted page and success-page spinners. Carries only what a buyer needs: display
 * names, price, split, the signed order and chain details; no platform internals.
 */
export function serializePublicSession({ session: s, order: row }: PublicRead, chain: ChainRuntime, gasless: GaslessView, devnet: boolean, x402Url: string) {
  const order = serializeOrder(row);
  return {
    id: s.id,
    object: 'checkout_session' as const,
    state: s.state,
    expires_at: s.expires_at.toISOString(),
    success_url: s.success_url,
    cancel_url: s.cancel_url,
    payer_address: s.payer_address,
    x402_url: x402Url,
    fee_display: s.fee_display,
    merchant: { name: s.merchant_name },
    platform: { name: s.platform_name },
    order: {
      id: order.id, order_no: order.order_no, state: order.state, chain_id: order.chain_id, token: order.token,
      token_address: order.token_address, amount: order.amount, computed_split: order.computed_split, pay_to: order.pay_to,
      eip712: order.eip712, signature: order.signature, deadline_at: order.deadline_at, tx_hash: order.tx_hash,
      capture_method: order.capture_method, capture_before: order.capture_before,
      deposit_address: order.deposit_address, refund_address: order.refund_address, amount_received: order.amount_received, amount_due: order.amount_due,
    },
    chain: {
      chain_id: chain.chainId,
      name: chain.name,
      // Only the devnet's RPC is handed to browsers; a production RPC URL may carry a provider key.
      rpc_url: devnet ? chain.rpcUrl : null,
      confirmations_required: chain.confirmations,
      block_explorer_url: chain.blockExplorerUrl,
    },
    gasless,
  };
}

/** What checkout.session.completed carries: the session and the order (confirmed, or authorized for capture_method manual). */
export const sessionCompletedObject = (session: SessionRow, order: OrderRow) => ({
  id: session.id, object: 'checkout_session', state: 'completed', order_id: order.id, expires_at: new Date(session.expires_at).toISOString(),
  metadata: order.metadata, order: serializeOrder(order),
});

/** What checkout.session.expired carries: the session and its order's metadata. */
export const sessionExpiredObject = (session: SessionRow, order: OrderRow) => ({
  id: session.id, object: 'checkout_session', state: 'expired', order_id: order.id, expires_at: new Date(session.expires_at).toISOString(),
  metadata: order.metadata,
});
