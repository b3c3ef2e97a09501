import { z } from '@hono/zod-openapi';
import { AddressSchema, AmountSchema, ChainIdSchema, ExternalIdSchema, MetadataSchema } from '../../lib/schemas.js';
import { ComputedSplit } from '../orders/schemas.js';
import { X402PaymentPayload, X402Requirements } from './payload.js';

export const X402TokenParams = z.object({ token: z.string().max(128) });

export const PaymentRequiredSchema = z.object({
  x402Version: z.literal(2),
  error: z.string().optional().openapi({ description: 'Set when a presented payment was refused: the x402 invalidReason (docs/x402.md)' }),
  resource: z.object({ url: z.string(), description: z.string(), mimeType: z.string() }),
  accepts: z.array(X402Requirements),
  message: z.string().optional().openapi({ description: 'For people: why the payment was refused' }),
}).openapi('X402PaymentRequired');

export const X402Receipt = z.object({
  object: z.literal('x402_receipt'), order_id: z.string(),
  state: z.string().openapi({ description: 'The order\'s state when the answer left: `pending_payment` until the indexer sees the payment at `confirmations_required` blocks' }),
  amount: z.string(), token_address: z.string(), computed_split: ComputedSplit,
  tx_hash: z.string().nullable().openapi({ description: 'The mined settlement transaction; null when nothing was mined' }),
  confirmations_required: z.number().int().openapi({ description: 'Blocks on top of the payment\'s before the order is `confirmed` on this chain' }),
}).openapi('X402Receipt');

export const RequirementsRequest = z.object({
  merchant_id: ExternalIdSchema,
  amount: AmountSchema.openapi({ description: 'Decimal USDC, e.g. "0.75"' }),
  chain_id: ChainIdSchema.optional().openapi({ description: 'Default: the first configured chain' }),
  description: z.string().max(500).optional(),
  resource: z.string().url().max(2048).optional().openapi({ description: 'The URL of the platform\'s paid resource (PaymentRequired.resource.url)' }),
  metadata: MetadataSchema.optional(),
  payer_address: AddressSchema.optional().openapi({ description: 'Only this wallet may pay' }),
  expires_in_seconds: z.number().int().min(60).max(3600).optional().openapi({ description: 'Default 600' }),
}).strict().openapi('X402RequirementsRequest');

export const RequirementsResponse = z.object({
  object: z.literal('x402_requirements'), session_id: z.string(), order_id: z.string(), x402_url: z.string(), payment_required: PaymentRequiredSchema,
}).openapi('X402Requirements');

/** The x402 facilitator request (camelCase: the x402 wire format, docs/decisions.md). */
export const FacilitatorRequest = z.object({
  x402Version: z.literal(2),
  paymentPayload: X402PaymentPayload,
  paymentRequirements: X402Requirements.openapi({ description: 'As /v1/x402/requirements offered them; extra.trisettle_session names the session' }),
}).strict().openapi('X402FacilitatorRequest');

export const VerifyResponse = z.object({
  isValid: z.boolean(), invalidReason: z.string().optional(), invalidMessage: z.string().optional(), payer: z.string(),
}).openapi('X402VerifyResponse');

export const SettleResponse = z.object({
  success: z.boolean(), errorReason: z.string().optional(), errorMessage: z.string().optional(), payer: z.string(),
  transaction: z.string().openapi({ description: 'The relayer\'s transaction hash ("" when nothing was sent)' }), network: z.string(), order: X402Receipt,
}).openapi('X402SettleResponse');
