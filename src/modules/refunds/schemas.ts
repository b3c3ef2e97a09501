import { z } from '@hono/zod-openapi';
import { AmountSchema, MetadataSchema } from '../../lib/schemas.js';
import { Eip712 } from '../orders/schemas.js';

export const RefundStateSchema = z.enum(['pending', 'requires_funding', 'completed', 'failed']);

const IdSchema = z.string().min(1).max(64);

export const CreateRefundRequest = z
  .object({
    order_id: IdSchema.openapi({ description: 'The order to refund (confirmed or partially_refunded)' }),
    amount: AmountSchema.optional().openapi({ description: 'Human units; default: all that is left to refund' }),
    reason: z.string().trim().min(1).max(500).optional(),
    metadata: MetadataSchema.optional(),
  })
  .strict()
  .openapi('CreateRefundRequest');

export const Refund = z
  .object({
    id: z.string(),
    object: z.literal('refund'),
    order_id: z.string(),
    amount: z.string().openapi({ description: 'Human units' }),
    state: RefundStateSchema.openapi({
      description: 'pending: the service submits it from the reserve; requires_funding: the platform or merchant wallet must approve `funding_required` to `pay_to` and call refund(eip712.message, signature); completed; failed',
    }),
    reason: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()),
    reserve_portion: z.string().openapi({ description: 'Base units paid from the order\'s reserve (estimate until completed)' }),
    funding_required: z.string().openapi({ description: 'Base units the submitting wallet must approve to pay_to (estimate until completed)' }),
    funded_by: z.union([z.string(), z.null()]).openapi({ description: 'Completed refunds: the wallet that paid `funding_required` (the sender of its USDC transfer to the router); null when the reserve covered it all' }),
    to: z.string().openapi({ description: 'Who receives the refund: the wallet that paid the order' }),
    pay_to: z.string().openapi({ description: 'PaymentRouter address to call refund() on' }),
    eip712: Eip712,
    signature: z.string(),
    deadline_at: z.string().openapi({ description: 'The signature is accepted by the router until then; afterwards the refund fails' }),
    tx_hash: z.string().nullable(),
    failure_reason: z.string().nullable(),
    created_at: z.string(),
    completed_at: z.string().nullable(),
    attempts: z.number().int().openapi({ description: 'Times the service has submitted it (pending refunds; a transient refusal is retried on a bounded schedule)' }),
    cancellation: z.enum(['pending', 'cancelled', 'too_late']).nullable().openapi({
      description: 'null: none asked. pending: the router was asked to cancel the signature; the refund stays open (and may still complete) until the cancellation is confirmed on chain. cancelled: confirmed, the refund failed. too_late: it executed first and completed.',
    }),
  })
  .openapi('Refund');

export const ListRefundsQuery = z
  .object({
    order_id: IdSchema.optional(),
    state: RefundStateSchema.optional(),
    limit: z.coerce.number().int().min(1).max(100).default(20),
    cursor: z.string().max(200).optional(),
  })
  .strict();
