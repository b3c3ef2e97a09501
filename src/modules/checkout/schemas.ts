import { z } from '@hono/zod-openapi';
import { AddressSchema, AmountSchema, ChainIdSchema, ExternalIdSchema, MetadataSchema, TokenSchema } from '../../lib/schemas.js';
import { CaptureFields, ComputedSplit, Eip712, OrderNoSchema, OrderStateSchema, refineCapture } from '../orders/schemas.js';
import { Gasless } from '../relay/schemas.js';

export const SESSION_DEFAULT_SECONDS = 30 * 60;
export const SESSION_MAX_SECONDS = 24 * 3600;

const RedirectUrl = z
  .string()
  .max(2048)
  .url()
  .refine((v) => /^https?:\/\//i.test(v), 'must be an http(s) URL');

export const FeeDisplay = z.enum(['itemized', 'total_only']).openapi({
  description: 'What the hosted page shows the buyer: itemized (default) the price and the fee breakdown; total_only the price only',
});

export const LatePayment = z.enum(['return', 'accept']).openapi({
  description: 'What a transfer to the order\'s deposit address after expires_at gets (docs/deposits.md): return (default) goes back to the refund address; accept still pays the order within the grace window DEPOSIT_LATE_GRACE_SECONDS after expires_at (the deposit\'s on-chain deadline is that much later), then returns',
});

export const CreateSessionRequest = z
  .object({
    merchant_id: ExternalIdSchema.openapi({ description: 'The external_id assigned at onboarding' }),
    order_no: OrderNoSchema,
    chain_id: ChainIdSchema,
    token: TokenSchema,
    amount: AmountSchema,
    success_url: RedirectUrl.optional(),
    cancel_url: RedirectUrl.optional(),
    payer_address: AddressSchema.optional().openapi({ description: 'Locks the session (and the signed PayOrder) to this wallet' }),
    expires_in_seconds: z.number().int().min(60).max(SESSION_MAX_SECONDS).optional().openapi({ description: 'Default 1800 (30 min), max 86400 (24 h)' }),
    metadata: MetadataSchema.optional(),
    fee_display: FeeDisplay.optional(),
    late_payment: LatePayment.optional(),
    ...CaptureFields,
  })
  .strict()
  .superRefine(refineCapture)
  .openapi('CreateCheckoutSessionRequest');

export const CheckoutSession = z
  .object({
    id: z.string(),
    object: z.literal('checkout_session'),
    session_token: z.string(),
    url: z.string(),
    x402_url: z.string().openapi({ description: 'The same order payable by an x402 v2 client (HTTP 402, exact scheme, USDC): `{base_url}/x402/{session_token}` (docs/x402.md)' }),
    state: z.enum(['open', 'completed', 'expired']),
    order_id: z.string(),
    expires_at: z.string(),
    success_url: z.string().nullable(),
    cancel_url: z.string().nullable(),
    payer_address: z.string().nullable(),
    fee_display: FeeDisplay,
    late_payment: LatePayment,
    created_at: z.string(),
  })
  .openapi('CheckoutSession');

export const PublicCheckoutSession = z
  .object({
    id: z.string(),
    object: z.literal('checkout_session'),
    state: z.enum(['open', 'completed', 'expired']),
    expires_at: z.string(),
    success_url: z.string().nullable(),
    cancel_url: z.string().nullable(),
    payer_address: z.string().nullable(),
    x402_url: z.string().openapi({ description: 'This session payable by an x402 v2 client (docs/x402.md)' }),
    fee_display: FeeDisplay,
    merchant: z.object({ name: z.string() }),
    platform: z.object({ name: z.string() }),
    order: z.object({
      id: z.string(),
      order_no: z.string(),
      state: OrderStateSchema,
      chain_id: z.number().int(),
      token: z.string(),
      token_address: z.string(),
      amount: z.string(),
      computed_split: ComputedSplit,
      pay_to: z.string(),
      eip712: Eip712,
      signature: z.string(),
      deadline_at: z.string(),
      tx_hash: z.string().nullable(),
      capture_method: z.enum(['automatic', 'manual']),
      capture_before: z.string().nullable().openapi({ description: 'manual: the payment is held (authorized) and charged later, before this instant, or returned to the buyer' }),
      deposit_address: z.string().nullable().openapi({ description: 'The deposit address (null until a refund address is chosen: POST /v1/checkout/sessions/{token}/deposit_address)' }),
      refund_address: z.string().nullable(),
      amount_received: z.string().openapi({ description: 'Base units transferred to the deposit address, at confirmation depth' }),
      amount_due: z.string().openapi({ description: 'Base units still due: amount − amount_received, at least "0"' }),
    }),
    chain: z.object({
      chain_id: z.number().int(),
      name: z.string(),
      rpc_url: z.string().nullable(),
      confirmations_required: z.number().int(),
      block_explorer_url: z.string().nullable(),
    }),
    gasless: Gasless.openapi({ description: 'Gasless payment (ERC-3009): sign typed_data (fill in message.from), POST it to /v1/checkout/sessions/{token}/relay' }),
  })
  .openapi('PublicCheckoutSession');

export const SessionTokenParams = z.object({ token: z.string().max(128) });
