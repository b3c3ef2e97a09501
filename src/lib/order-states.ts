/** The order states (SPEC §3), listed once: the database type, the zod enum, the transition table and the web use it. */
export const ORDER_STATES = ['pending_payment', 'confirmed', 'partially_refunded', 'refunded', 'failed', 'expired'] as const;
export type OrderState = (typeof ORDER_STATES)[number];
