import type { WebhookDeliveriesTable } from '../../db/schema.js';
import type { Transitions } from '../../lib/transitions.js';

type DeliveryState = WebhookDeliveriesTable['state'];

/**
 * A delivery is pending until an attempt ends it: a 2xx (succeeded), the last retry or its endpoint's removal or
 * disabling (failed); a failed attempt with retries left keeps it pending (retry). Redelivery and replay make any
 * delivery pending and due now (unless an attempt of it is in flight).
 */
export const DELIVERY_TRANSITIONS = {
  succeed: { from: ['pending'], to: 'succeeded' },
  retry: { from: ['pending'], to: 'pending' },
  fail: { from: ['pending'], to: 'failed' },
  redeliver: { from: ['pending', 'succeeded', 'failed'], to: 'pending' },
} as const satisfies Transitions<DeliveryState, 'succeed' | 'retry' | 'fail' | 'redeliver'>;

/** The transition an attempt's result makes. */
export const attemptTransition = (state: DeliveryState) => (state === 'succeeded' ? 'succeed' : state === 'failed' ? 'fail' : 'retry');
