import { z } from '@hono/zod-openapi';
import { Merchant } from '../../modules/merchants/schemas.js';
import { Order, OrderStateSchema } from '../../modules/orders/schemas.js';
import { Refund } from '../../modules/refunds/schemas.js';
import { Settlement } from '../../modules/settlements/schemas.js';
import { Subscription } from '../../modules/subscriptions/schemas.js';
import { WebhookEndpoint } from '../../modules/webhooks/schemas.js';
import { EVENT_TYPES, type EventType } from '../../modules/events/types.js';

export const EventTypeSchema = z.enum(EVENT_TYPES);

export const EventSchema = z
  .object({
    id: z.string().openapi({ example: 'evt_5Qk2Xw9mBv0LcT7rJ1aN' }),
    object: z.literal('event'),
    type: z.string().openapi({ enum: [...EVENT_TYPES], example: 'order.confirmed' }),
    created_at: z.string(),
    data: z.object({ object: z.record(z.string(), z.unknown()) }).openapi({
      description: 'The resource the event is about, as the API returns it (orders carry their metadata, payer and tx hash); see the webhooks section for the shape per type',
    }),
  })
  .openapi('Event');

/** What refund events carry: the refund plus a summary of its order (with the order's metadata). */
export const RefundEventObject = Refund.extend({
  order: z.object({
    id: z.string(),
    order_no: z.string(),
    state: OrderStateSchema,
    amount: z.string(),
    refunded_amount: z.string(),
    metadata: z.record(z.string(), z.unknown()),
  }),
}).openapi('RefundEventObject');

/** What payment.returned carries: one DepositReturned of a deposit address (docs/deposits.md). */
export const PaymentReturnObject = z
  .object({
    object: z.literal('payment_return'),
    order_id: z.string(),
    deposit_address: z.string(),
    refund_address: z.string().openapi({ description: 'Where the funds went (the deposit\'s refund address)' }),
    token_address: z.string(),
    amount: z.string().openapi({ description: 'Base units returned' }),
    reason: z.enum(['late', 'settled', 'excess', 'other_token']).openapi({
      description: 'late: past the deposit\'s deadline; settled: the order was already paid (by any method) or cancelled, or a refund passed on; excess: more than the amount arrived, the order was paid exactly; other_token: a token other than the order\'s',
    }),
    tx_hash: z.string(),
    metadata: z.record(z.string(), z.unknown()),
  })
  .openapi('PaymentReturnObject');

/** What checkout.session.* events carry (not the full CheckoutSession: the token and URL are never sent again). */
export const CheckoutSessionEventObject = z
  .object({
    id: z.string(),
    object: z.literal('checkout_session'),
    state: z.enum(['open', 'completed', 'expired']),
    order_id: z.string(),
    expires_at: z.string(),
    metadata: z.record(z.string(), z.unknown()),
    order: Order.optional().openapi({ description: 'The confirmed (or, capture_method manual, authorized) order (checkout.session.completed only)' }),
  })
  .openapi('CheckoutSessionEventObject');

const OBJECT_OF = {
  'order.confirmed': [Order, 'OrderConfirmedEvent', 'The order reached its confirmation depth on chain.'],
  'order.failed': [Order, 'OrderFailedEvent', 'The order was failed (operator action or dispute).'],
  'order.expired': [Order, 'OrderExpiredEvent', 'The order passed deadline_at unpaid.'],
  'order.authorized': [Order, 'OrderAuthorizedEvent', 'capture_method manual: the payment reached its confirmation depth and the router holds it (amount_authorized) until you capture or void it, or capture_before passes.'],
  'order.voided': [Order, 'OrderVoidedEvent', 'capture_method manual: the authorization went back to the payer uncaptured (void_reason: requested, authorization_expired or reclaimed_by_payer).'],
  'order.underpaid': [Order, 'OrderUnderpaidEvent', 'A transfer to the order\'s deposit address reached confirmation depth and amount_received is still below the amount (amount_due says what is missing).'],
  'order.overpaid': [Order, 'OrderOverpaidEvent', 'The deposit address received more than the amount: the order was paid exactly and the excess went back to the refund address (a payment.returned follows with reason excess).'],
  'payment.returned': [PaymentReturnObject, 'PaymentReturnedEvent', 'A deposit address sent funds back to its refund address (late, already settled, excess, or another token).'],
  'refund.completed': [RefundEventObject, 'RefundCompletedEvent', 'The refund was paid to the buyer on chain.'],
  'refund.failed': [RefundEventObject, 'RefundFailedEvent', 'The refund can no longer be executed (its signature expired).'],
  'checkout.session.completed': [CheckoutSessionEventObject, 'CheckoutSessionCompletedEvent', 'The session\'s order was confirmed (or, for capture_method manual, authorized).'],
  'checkout.session.expired': [CheckoutSessionEventObject, 'CheckoutSessionExpiredEvent', 'The session expired unpaid (its order expired with it).'],
  'subscription.created': [Subscription, 'SubscriptionCreatedEvent', 'A subscription was created (incomplete: its link awaits the payer\'s authorization).'],
  'subscription.activated': [Subscription, 'SubscriptionActivatedEvent', 'The payer authorized it (the first charge is queued), or a charge of a past_due subscription succeeded.'],
  'subscription.past_due': [Subscription, 'SubscriptionPastDueEvent', 'A charge failed without moving money; retries follow at +1 h, +1 day and +3 days (chain clock).'],
  'subscription.canceled': [Subscription, 'SubscriptionCanceledEvent', 'No more charges: cancel_reason canceled_by_platform, payer_revoked, payment_failed or ended.'],
  'merchant.created': [Merchant, 'MerchantCreatedEvent', 'A merchant was created, directly or by completing an invitation.'],
  'settlement.completed': [Settlement, 'SettlementCompletedEvent', 'A reserve-release batch carrying your orders was confirmed on chain.'],
  'webhook_endpoint.disabled': [WebhookEndpoint, 'WebhookEndpointDisabledEvent', 'An endpoint was disabled: it kept failing without a success for WEBHOOK_DISABLE_AFTER_DAYS (default 5), or answered 410.'],
} as const satisfies Record<EventType, readonly [z.ZodType, string, string]>;

const webhookEvent = <T extends EventType>(type: T) => {
  const [object, name, description] = OBJECT_OF[type];
  return z
    .object({
      id: z.string().openapi({ description: 'evt_…; the same for every attempt and every endpoint: deduplicate on it' }),
      type: z.literal(type),
      created_at: z.string(),
      data: z.object({ object }),
    })
    .openapi(name, { description });
};

/** The body of a webhook delivery, one schema per event type (the exact bytes are signed). */
export const WEBHOOK_EVENTS = Object.fromEntries(EVENT_TYPES.map((t) => [t, webhookEvent(t)])) as {
  [T in EventType]: ReturnType<typeof webhookEvent<T>>;
};
export const WEBHOOK_EVENT_DESCRIPTIONS: Record<EventType, string> = Object.fromEntries(
  EVENT_TYPES.map((t) => [t, OBJECT_OF[t][2]]),
) as Record<EventType, string>;

export const WebhookEvent = z
  .discriminatedUnion('type', EVENT_TYPES.map((t) => WEBHOOK_EVENTS[t]) as unknown as [
    (typeof WEBHOOK_EVENTS)[EventType], ...(typeof WEBHOOK_EVENTS)[EventType][],
  ])
  .openapi('WebhookEvent', { description: 'Any webhook body; switch on `type`' });
