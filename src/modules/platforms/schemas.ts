import { z } from '@hono/zod-openapi';
import { AddressSchema, BpsSchema, ChainIdSchema, NameSchema } from '../../lib/schemas.js';

export const OnboardSelfRequest = z
  .object({
    name: NameSchema,
    platform_wallet: AddressSchema,
    chain_id: ChainIdSchema,
    platform_fee_bps: BpsSchema,
    default_reserve_bps: BpsSchema,
  })
  .strict()
  .openapi('OnboardSelfRequest');

export const OnboardSelfResponse = z
  .object({
    platform_id: z.string(),
    name: z.string(),
    secret_key: z.string().openapi({ description: 'sk_live_…, shown only here' }),
    publishable_key: z.string(),
    platform_wallet: z.string(),
    chain_id: z.number().int(),
    platform_fee_bps: z.number().int(),
    default_reserve_bps: z.number().int(),
    created_at: z.string(),
  })
  .openapi('OnboardSelfResponse');
