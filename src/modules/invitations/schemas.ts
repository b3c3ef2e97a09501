import { z } from '@hono/zod-openapi';
import { AddressSchema, BpsSchema, ChainIdSchema, ExternalIdSchema, NameSchema } from '../../lib/schemas.js';
import { Merchant } from '../merchants/schemas.js';

export const INVITATION_DEFAULT_SECONDS = 7 * 24 * 3600;

export const CreateInvitationRequest = z
  .object({
    external_id: ExternalIdSchema,
    suggested_name: NameSchema,
    chain_id: ChainIdSchema,
    reserve_bps: BpsSchema.optional().openapi({ description: 'Defaults to the platform default_reserve_bps' }),
    expires_in_seconds: z.number().int().min(60).max(2_592_000).optional().openapi({ description: '60..2592000, default 604800 (7 days)' }),
  })
  .strict()
  .openapi('CreateInvitationRequest');

export const Invitation = z
  .object({
    id: z.string(),
    object: z.literal('merchant_invitation'),
    token: z.string().optional().openapi({ description: 'moi_live_…; only in the creation response' }),
    url: z.string().optional().openapi({ description: '{dashboard_url}/onboard/<token>; only in the creation response' }),
    expires_at: z.string(),
    external_id: z.string(),
    suggested_name: z.string(),
    chain_id: z.number().int(),
    reserve_bps: z.number().int(),
    state: z.enum(['pending', 'completed', 'expired']),
    wallet: z.string().nullable(),
    merchant_id: z.string().nullable(),
    created_at: z.string(),
    completed_at: z.string().nullable(),
    revoked_at: z.string().nullable().openapi({ description: 'Set when the platform revoked it; a revoked invitation reads as expired' }),
  })
  .openapi('MerchantInvitation');

export const InvitationIdParams = z.object({ id: z.string().min(1).max(64) });

export const PublicInvitation = z
  .object({
    id: z.string(),
    state: z.enum(['pending', 'completed', 'expired']),
    external_id: z.string(),
    suggested_name: z.string(),
    chain_id: z.number().int(),
    platform_name: z.string(),
    expires_at: z.string(),
    message: z.string().nullable().openapi({ description: 'Exact text to personal_sign; present when ?wallet= is given' }),
  })
  .openapi('PublicInvitation');

/** ERC-6492 wrapped signatures carry the wallet's factory calldata: a few KB. 8 KiB (16 KiB of hex) bounds them. */
export const MAX_SIGNATURE_BYTES = 8192;

export const CompleteInvitationRequest = z
  .object({
    wallet: AddressSchema,
    name: NameSchema,
    signature: z
      .string()
      .max(2 + 2 * MAX_SIGNATURE_BYTES, `must be at most ${MAX_SIGNATURE_BYTES} bytes`)
      .regex(/^0x(?:[0-9a-fA-F]{2})+$/, 'must be 0x-prefixed hex bytes')
      .openapi({ description: `EIP-191 (65 bytes) from an EOA, ERC-1271 from a contract wallet, or ERC-6492 wrapped from a not yet deployed one; at most ${MAX_SIGNATURE_BYTES} bytes (${2 * MAX_SIGNATURE_BYTES} hex characters)` }),
  })
  .strict()
  .openapi('CompleteInvitationRequest');

export const CompleteInvitationResponse = z
  .object({ merchant: Merchant, invitation: Invitation })
  .openapi('CompleteInvitationResponse');

export const InvitationTokenParams = z.object({ token: z.string().max(128) });
export const WalletQuery = z.object({ wallet: AddressSchema.optional() }).strict();
