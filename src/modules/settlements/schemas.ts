import { z } from '@hono/zod-openapi';

export const SettlementOrder = z
  .object({
    order_id: z.string(),
    order_no: z.string(),
    merchant_id: z.string().openapi({ description: "The merchant's external_id" }),
    amount: z.string().openapi({ description: 'Reserve the batch set out to release, human units' }),
    released_amount: z.string().nullable().openapi({ description: 'Reserve the router released to the merchant, human units' }),
    state: z.enum(['included', 'released', 'release_failed', 'skipped', 'batch_failed']).openapi({
      description: 'included: in flight; released; release_failed: the token refused the transfer (retried in a later batch); skipped: nothing was left to release; batch_failed: the batch reverted (retried in a later batch)',
    }),
  })
  .openapi('SettlementOrder');

export const Settlement = z
  .object({
    id: z.string(),
    object: z.literal('settlement'),
    chain_id: z.number().int(),
    state: z.enum(['submitted', 'confirmed', 'failed']),
    order_count: z.number().int().openapi({ description: 'Your orders in this batch' }),
    total: z.string().openapi({ description: 'Reserve this batch releases (or, while submitted, will release) to your merchants, human units' }),
    tx_hash: z.string().nullable(),
    created_at: z.string(),
    confirmed_at: z.string().nullable(),
    orders: z.array(SettlementOrder),
  })
  .openapi('Settlement');
