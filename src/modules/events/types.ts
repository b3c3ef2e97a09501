/**
 * Every event type the service emits. A webhook endpoint subscribes to a non-empty subset of these, or to
 * ["*"] (every type, including types added later).
 */
export const EVENT_TYPES = [
  'order.confirmed',
  'order.failed',
  'order.expired',
  'order.authorized',
  'order.voided',
  'order.underpaid',
  'order.overpaid',
  'payment.returned',
  'refund.completed',
  'refund.failed',
  'checkout.session.completed',
  'checkout.session.expired',
  'subscription.created',
  'subscription.activated',
  'subscription.past_due',
  'subscription.canceled',
  'merchant.created',
  'settlement.completed',
  'webhook_endpoint.disabled',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export const ALL_EVENTS = '*';

export const isEventType = (v: string): v is EventType => (EVENT_TYPES as readonly string[]).includes(v);
