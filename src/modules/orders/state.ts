import type { OrderState } from '../../db/schema.js';

/**
 * Order transitions (SPEC §3 plus DESIGN §4): the one table the API, the sweeper and the indexer share.
 * "Chain wins": a payment (OrderPaid, or OrderAuthorized for capture_method manual) seen for an order already
 * expired still moves it, because the router checked the deadline itself when it accepted the payment.
 * Charge later: an authorization ends captured (OrderCaptured + OrderPaid of one transaction → confirmed) or
 * voided (the service's voidAuthorization, or the payer's reclaim after capture_before).
 */
export type OrderTrigger = 'paid' | 'authorize' | 'capture' | 'void' | 'fail' | 'expire' | 'refund_partial' | 'refund_full';

export const ORDER_TRANSITIONS: Record<OrderTrigger, { from: readonly OrderState[]; to: OrderState }> = {
  paid: { from: ['pending_payment', 'expired'], to: 'confirmed' },
  authorize: { from: ['pending_payment', 'expired'], to: 'authorized' },
  capture: { from: ['authorized'], to: 'confirmed' },
  void: { from: ['authorized'], to: 'voided' },
  fail: { from: ['pending_payment'], to: 'failed' },
  expire: { from: ['pending_payment'], to: 'expired' },
  refund_partial: { from: ['confirmed', 'partially_refunded'], to: 'partially_refunded' },
  refund_full: { from: ['confirmed', 'partially_refunded'], to: 'refunded' },
};

export { ORDER_STATES } from '../../lib/order-states.js';

export function canTransition(from: OrderState, trigger: OrderTrigger): boolean {
  return ORDER_TRANSITIONS[trigger].from.includes(from);
}

export function invalidTransitionMessage(id: string, current: OrderState, trigger: OrderTrigger): string {
  const allowed = ORDER_TRANSITIONS[trigger].from.join(' or ');
  return `Order ${id} is ${current}; '${trigger}' needs ${allowed}.`;
}
