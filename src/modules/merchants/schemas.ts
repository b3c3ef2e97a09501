import { z } from '@hono/zod-openapi';
import { AddressSchema, BpsSchema, ChainIdSchema, ExternalIdSchema, NameSchema } from '../../lib/schemas.js';

export const CreateMerchantRequest = z
  .object({
    external_id: ExternalIdSchema,
    name: NameSchema,
    merchant_wallet: AddressSchema,
    chain_id: ChainIdSchema,
    reserve_bps: BpsSchema.optional().openapi({ description: 'Defaults to the platform default_reserve_bps' }),
  })
  .strict()
  .openapi('CreateMerchantRequest');

export const Merchant = z
  .object({
    id: z.string(),
    object: z.literal('merchant'),
    external_id: z.string(),
    name: z.string(),
    merchant_wallet: z.string(),
    chain_id: z.number().int(),
    reserve_bps: z.number().int(),
    state: z.string(),
    created_at: z.string(),
  })
  .openapi('Merchant');
