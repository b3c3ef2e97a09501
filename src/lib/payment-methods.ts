/** How a payment entered the router (GET /v1/orders/{id} `payment_method`; modules/timelines/payment-method.ts). */
export const PAYMENT_METHODS = ['approve_and_pay', 'permit', 'gasless', 'batched', 'x402', 'authorization', 'subscription', 'deposit'] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];
