import { z } from '@hono/zod-openapi';
import { AmountSchema, ChainIdSchema, ExternalIdSchema, MetadataSchema, TokenSchema } from '../../lib/schemas.js';
import { ORDER_STATES } from '../../lib/order-states.js';
import { PAYMENT_METHODS } from '../../lib/payment-methods.js';

export const DIRECT_ORDER_DEFAULT_SECONDS = 3600;
/** Charge later: how long after deadline_at a manual order's authorization may be captured (capture_before). */
export const CAPTURE_WITHIN_DEFAULT_SECONDS = 604_800;
export const CAPTURE_WITHIN_MIN_SECONDS = 3_600;
export const CAPTURE_WITHIN_MAX_SECONDS = 2_592_000;

/** The request fields of charge later, shared by orders and checkout sessions. */
export const CaptureFields = {
  capture_method: z.enum(['automatic', 'manual']).optional().openapi({
    description: 'automatic (default): the payment is captured when mined. manual: it is held by the router as an authorization until you capture it (POST /v1/orders/{id}/capture) or void it',
  }),
  capture_within_seconds: z.number().int().min(CAPTURE_WITHIN_MIN_SECONDS).max(CAPTURE_WITHIN_MAX_SECONDS).optional().openapi({
    description: `manual only: capture window after deadline_at, ${CAPTURE_WITHIN_MIN_SECONDS}..${CAPTURE_WITHIN_MAX_SECONDS} s (default ${CAPTURE_WITHIN_DEFAULT_SECONDS}); capture_before = deadline_at + this`,
  }),
};
export type CaptureRequest = { capture_method?: 'automatic' | 'manual' | undefined; capture_within_seconds?: number | undefined };

/** capture_within_seconds belongs to a manual order only (422 naming it otherwise). */
export function refineCapture(v: CaptureRequest, ctx: z.RefinementCtx): void {
  if (v.capture_within_seconds !== undefined && v.capture_method !== 'manual') {
    ctx.addIssue({ code: 'custom', path: ['capture_within_seconds'], message: 'is only allowed with capture_method "manual"' });
  }
}

export const OrderNoSchema = z.string().min(1).max(128).regex(/^[\x20-\x7e]+$/, 'must be printable ASCII');

export const CreateOrderRequest = z
  .object({
    merchant_id: ExternalIdSchema.openapi({ description: "The merchant's external_id" }),
    order_no: OrderNoSchema.openapi({ description: 'Your order number; unique per platform among live orders' }),
    chain_id: ChainIdSchema,
    token: TokenSchema,
    amount: AmountSchema,
    metadata: MetadataSchema.optional(),
    expires_in_seconds: z.number().int().min(60).max(86_400).optional().openapi({ description: 'Payment window, 60..86400 s (default 3600); sets deadline_at' }),
    ...CaptureFields,
  })
  .strict()
  .superRefine(refineCapture)
  .openapi('CreateOrderRequest');

export const ComputedSplit = z
  .object({
    service_fee: z.string(),
    platform_fee: z.string(),
    merchant_gross: z.string(),
    reserve_hold: z.string(),
    merchant_available: z.string(),
  })
  .openapi('ComputedSplit', { description: 'Base-unit integer strings (USDC has 6 decimals)' });

export const Eip712 = z
  .object({
    domain: z.object({ name: z.string(), version: z.string(), chainId: z.number().int(), verifyingContract: z.string() }),
    primary_type: z.string(),
    types: z.record(z.string(), z.array(z.object({ name: z.string(), type: z.string() }))),
    message: z.record(z.string(), z.unknown()),
  })
  .openapi('Eip712TypedData');

export const OrderStateSchema = z.enum(ORDER_STATES);

export const Order = z
  .object({
    id: z.string(),
    object: z.literal('order'),
    merchant_id: z.string(),
    order_no: z.string(),
    chain_id: z.number().int(),
    token: z.string(),
    token_address: z.string(),
    amount: z.string(),
    metadata: z.record(z.string(), z.unknown()),
    state: OrderStateSchema,
    pay_to: z.string(),
    computed_split: ComputedSplit,
    eip712: Eip712,
    signature: z.string(),
    deadline_at: z.string(),
    payer_address: z.string().nullable(),
    paid_by: z.string().nullable(),
    tx_hash: z.string().nullable(),
    refunded_amount: z.string(),
    reserve_remaining: z.string().openapi({ description: "Base units of the order's reserve the router still holds (0 once released to the merchant or spent on refunds); refunds are paid from it first" }),
    checkout_session_id: z.string().nullable(),
    subscription_id: z.string().nullable().openapi({ description: 'The subscription whose period this order charges (sub_…); null for other orders' }),
    subscription_period: z.number().int().nullable().openapi({ description: 'The period this order charges (0 = the first); null for other orders' }),
    failure_reason: z.string().nullable(),
    created_at: z.string(),
    confirmed_at: z.string().nullable(),
    capture_method: z.enum(['automatic', 'manual']),
    capture_before: z.string().nullable().openapi({ description: 'manual: the authorization can be captured before this instant (chain time; deadline_at + capture_within_seconds); null for automatic' }),
    amount_authorized: z.string().openapi({ description: 'Human units the router held for the order ("0.00" until paid; = amount for an automatic order once confirmed)' }),
    amount_captured: z.string().openapi({ description: 'Human units paid out to the parties ("0.00" until captured; = amount for an automatic order once confirmed). Refunds are bounded by it' }),
    capture_requested_at: z.string().nullable().openapi({ description: 'manual: a capture was requested and is on its way to the chain (null again if it failed)' }),
    void_requested_at: z.string().nullable().openapi({ description: 'manual: a void was requested (by you, or by the service when capture_before passed)' }),
    void_reason: z.enum(['requested', 'authorization_expired', 'reclaimed_by_payer']).nullable().openapi({ description: 'Why a voided authorization went back to the payer; null unless voided' }),
    deposit_address: z.string().nullable().openapi({ description: 'The order\'s deposit address (docs/deposits.md): a plain USDC transfer to it pays the order. Null until a refund address is chosen (POST /v1/orders/{id}/deposit_address)' }),
    refund_address: z.string().nullable().openapi({ description: 'Where the deposit address returns funds: excess, late or short payments. Fixed once chosen' }),
    amount_received: z.string().openapi({ description: 'Base units of USDC transferred to the deposit address, at confirmation depth ("0" by default)' }),
    amount_due: z.string().openapi({ description: 'Base units still to send to the deposit address: amount − amount_received, at least "0"' }),
  })
  .openapi('Order');

/** GET /v1/orders/:id: the order, with how it was paid and by whom (modules/timelines/payment-method.ts). */
export const OrderDetail = Order.extend({
  payment_method: z.enum(PAYMENT_METHODS).nullable().openapi({
    description: 'How the payment entered the router (null before payment): approve + payOrder, permit, gasless (ERC-3009 relay), batched (a wallet\'s EIP-5792 batch), x402 (relayed or attributed after a front-run), authorization (capture_method manual), or subscription (a charge pulled by the SubscriptionManager), or deposit (a transfer to the order\'s deposit address, swept into the router)',
  }),
  payer: z.string().nullable().openapi({ description: 'The address that paid (paid_by)' }),
}).openapi('OrderDetail');

export const CaptureOrderRequest = z
  .object({ amount: AmountSchema.optional().openapi({ description: 'Human units to capture, at most amount_authorized (default: all of it). The rest goes back to the payer in the same transaction' }) })
  .strict()
  .openapi('CaptureOrderRequest');

/** Date.parse rolls 2026-02-31 over to March: the calendar day must exist as written. */
function isRealDate(v: string): boolean {
  const [y, m, d] = v.slice(0, 10).split('-').map(Number) as [number, number, number];
  const day = new Date(Date.UTC(y, m - 1, d));
  return day.getUTCMonth() === m - 1 && day.getUTCDate() === d && !Number.isNaN(Date.parse(v));
}

/** A date (UTC midnight) or a date-time with Z or an offset, as ISO 8601 writes them. */
const IsoInstant = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?(?:Z|[+-]\d{2}:\d{2}))?$/, 'must be an ISO 8601 date (2026-01-31) or date-time with a zone (2026-01-31T12:00:00Z)')
  .refine(isRealDate, 'is not a real date')
  .transform((v) => new Date(v));

/** A subscription id as newId('sub') writes it: a malformed one is a 422 naming subscription_id, never an empty page. */
export const SubscriptionIdSchema = z.string().regex(/^sub_[0-9A-Za-z]{20}$/, 'must be a subscription id (sub_ and 20 letters or digits)');

export const ListOrdersQuery = z
  .object({
    state: OrderStateSchema.optional(),
    merchant_id: ExternalIdSchema.optional(),
    subscription_id: SubscriptionIdSchema.optional().openapi({
      description: "A subscription's charges (sub_…): every order of its periods, failed attempts included. An id of no subscription of yours gives an empty list, as merchant_id does",
    }),
    q: z.string().trim().min(1).max(128).optional().openapi({
      description: 'Exact match on one of: order id (ord_…), order_no, payer address (the wallet that paid, or the one the order was reserved for) or payment tx hash',
    }),
    from: IsoInstant.optional().openapi({ description: 'Created at or after (inclusive), ISO 8601', type: 'string' }),
    to: IsoInstant.optional().openapi({ description: 'Created before (exclusive), ISO 8601', type: 'string' }),
    limit: z.coerce.number().int().min(1).max(100).default(20),
    cursor: z.string().max(200).optional(),
  })
  .strict()
  .superRefine((v, ctx) => {
    if (v.from && v.to && v.from.getTime() >= v.to.getTime()) ctx.addIssue({ code: 'custom', path: ['to'], message: 'must be after from' });
  });
export type ListOrdersFilters = z.infer<typeof ListOrdersQuery>;

export const OrderSummary = z
  .object({
    total: z.number().int(),
    pending: z.number().int().openapi({ description: 'Orders in pending_payment (authorized orders are not counted: the buyer has paid)' }),
    confirmed: z.number().int().openapi({ description: 'Orders paid (confirmed, partially_refunded or refunded)' }),
    gross_24h: z.string().openapi({ description: 'Amount of orders confirmed in the last 24 h, human units' }),
    gross_daily: z.array(z.object({ day: z.string(), gross: z.string(), count: z.number().int() })),
  })
  .openapi('OrderSummary');
