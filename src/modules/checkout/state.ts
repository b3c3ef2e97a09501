import type { Transitions } from '../../lib/transitions.js';
import type { CheckoutSessionsTable } from '../../db/schema.js';

/**
 * Checkout session states (SPEC §3): a session follows its order (follow-orders.ts). "Chain wins": a payment
 * seen for an order the sweeper already expired completes its expired session too.
 */
export const SESSION_TRANSITIONS = {
  complete: { from: ['open', 'expired'], to: 'completed' },
  expire: { from: ['open'], to: 'expired' },
} as const satisfies Transitions<CheckoutSessionsTable['state'], 'complete' | 'expire'>;
