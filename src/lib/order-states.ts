/** The order states (SPEC §3, plus authorized and voided for capture_method manual), listed once: the database type, the zod enum, the transition table and the web use it. */
export const ORDER_STATES = ['pending_payment', 'authorized', 'confirmed', 'partially_refunded', 'refunded', 'failed', 'expired', 'voided'] as const;
export type OrderState = (typeof ORDER_STATES)[number];
