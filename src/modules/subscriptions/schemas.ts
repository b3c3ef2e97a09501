import { z } from '@hono/zod-openapi';
import { AddressSchema, AmountSchema, ChainIdSchema, ExternalIdSchema, MetadataSchema, TokenSchema } from '../../lib/schemas.js';
import { ComputedSplit, OrderStateSchema } from '../orders/schemas.js';

export const LINK_DEFAULT_SECONDS = 24 * 3600;
export const LINK_MAX_SECONDS = 7 * 24 * 3600;
/** max_periods ≤ 1000: with a year's period that is beyond any uint48 end anyway. */
export const MAX_PERIODS_LIMIT = 1000;

const RedirectUrl = z.string().max(2048).url().refine((v) => /^https?:\/\//i.test(v), 'must be an http(s) URL');

export const SubscriptionStateSchema = z.enum(['incomplete', 'active', 'past_due', 'canceled', 'expired']);
export const IntervalSchema = z.enum(['day', 'week', 'month', 'year']).openapi({ description: 'day = 86,400 s, week = 604,800 s, month = 30 days (2,592,000 s), year = 365 days' });
export const CancelReasonSchema = z.enum(['payment_failed', 'payer_revoked', 'canceled_by_platform', 'ended']);

export const CreateSubscriptionRequest = z
  .object({
    merchant_id: ExternalIdSchema.openapi({ description: 'The external_id assigned at onboarding' }),
    chain_id: ChainIdSchema,
    token: TokenSchema,
    amount: AmountSchema.openapi({ description: 'Charged each period, human units (USDC)' }),
    interval: IntervalSchema,
    interval_count: z.number().int().min(1).max(12).optional().openapi({ description: 'Periods of `interval` per charge, 1..12 (default 1)' }),
    max_periods: z.number().int().min(1).max(MAX_PERIODS_LIMIT).optional().openapi({ description: 'Charges at most this many periods (the permission ends after them); absent: until canceled' }),
    payer_address: AddressSchema.optional().openapi({ description: 'Only this wallet may authorize the subscription' }),
    metadata: MetadataSchema.optional(),
    success_url: RedirectUrl.optional(),
    cancel_url: RedirectUrl.optional(),
    expires_in_seconds: z.number().int().min(60).max(LINK_MAX_SECONDS).optional().openapi({ description: 'Life of the authorization link, default 86400 (24 h), max 604800' }),
  })
  .strict()
  .openapi('CreateSubscriptionRequest');

export const CancelSubscriptionRequest = z
  .object({ at_period_end: z.boolean().optional().openapi({ description: 'true: charge no more and cancel when the current period ends; default: at once' }) })
  .strict()
  .openapi('CancelSubscriptionRequest');

export const Subscription = z
  .object({
    id: z.string().openapi({ example: 'sub_5Qk2Xw9mBv0LcT7rJ1aN' }),
    object: z.literal('subscription'),
    state: SubscriptionStateSchema,
    url: z.string().nullable().openapi({ description: 'The hosted authorization page ({dashboard_url}/subscribe/<token>); only in the creation answer (the token is stored hashed), null elsewhere' }),
    merchant_id: z.string(),
    chain_id: z.number().int(),
    token: z.string(),
    token_address: z.string(),
    amount: z.string().openapi({ description: 'Per period, human units' }),
    computed_split: ComputedSplit.openapi({ description: 'The split of each charge, base units (the payer signs these rates)' }),
    interval: IntervalSchema,
    interval_count: z.number().int(),
    period_seconds: z.number().int(),
    max_periods: z.number().int().nullable(),
    payer_address: z.string().nullable().openapi({ description: 'The lock given at creation' }),
    payer: z.string().nullable().openapi({ description: 'The wallet that authorized it' }),
    manager_address: z.string(),
    permission_hash: z.string().nullable(),
    expires_at: z.string().openapi({ description: 'End of the authorization link (chain time)' }),
    authorized_at: z.string().nullable(),
    current_period_start: z.string().nullable(),
    current_period_end: z.string().nullable().openapi({ description: 'null until active' }),
    next_charge_at: z.string().nullable().openapi({ description: 'Chain time of the next charge or dunning retry; null when none is scheduled' }),
    periods_charged: z.number().int().openapi({ description: 'Periods charged so far' }),
    failed_attempts: z.number().int().openapi({ description: 'Failed charges of the current period (dunning)' }),
    cancel_at_period_end: z.boolean(),
    cancel_reason: CancelReasonSchema.nullable(),
    canceled_at: z.string().nullable(),
    metadata: z.record(z.string(), z.unknown()),
    success_url: z.string().nullable(),
    cancel_url: z.string().nullable(),
    created_at: z.string(),
  })
  .openapi('Subscription');

export const ListSubscriptionsQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(100).default(20).openapi({ description: 'Page size, 1..100 (default 20)' }),
    cursor: z.string().max(200).optional().openapi({ description: 'next_cursor of the previous page' }),
    state: SubscriptionStateSchema.optional(),
    merchant_id: ExternalIdSchema.optional(),
  })
  .strict();
export type ListSubscriptionsFilters = z.infer<typeof ListSubscriptionsQuery>;

export const SubscriptionTokenParams = z.object({ token: z.string().max(128) });
export const ReadAuthorizationQuery = z
  .object({
    payer: AddressSchema.optional().openapi({
      description: "The wallet about to sign: typed_data.message.payer and the permit's owner are set to it and, before activation, the permit's nonce is the token's nonces(payer) read now (nonce_filled)",
    }),
  })
  .strict();

const Permit = z
  .object({
    value: z.string().regex(/^[0-9]{1,78}$/).openapi({ description: 'Base units the permit allows the manager' }),
    deadline: z.string().regex(/^[0-9]{1,20}$/).openapi({ description: 'Unix seconds' }),
    signature: z.string().regex(/^0x[0-9a-fA-F]{130}$/).openapi({ description: '65-byte EIP-2612 signature of the payer (EOA)' }),
  })
  .strict();

export const AuthorizeSubscriptionRequest = z
  .object({
    payer: AddressSchema,
    start: z.number().int().min(0).max(2 ** 47).openapi({ description: 'message.start of the typed data signed (unix seconds, as the GET gave it)' }),
    signature: z.string().regex(/^0x([0-9a-fA-F]{2}){1,4000}$/).openapi({ description: 'EIP-712 signature of the SpendPermission: EOA, ERC-1271 or ERC-6492 (counterfactual wallet)' }),
    permit: Permit.optional().openapi({ description: 'EIP-2612 permit to the manager, used by the first charge (else an approve must be in place)' }),
  })
  .strict()
  .openapi('AuthorizeSubscriptionRequest');

const TypedData = z.object({
  domain: z.record(z.string(), z.unknown()),
  types: z.record(z.string(), z.array(z.object({ name: z.string(), type: z.string() }))),
  primary_type: z.string(),
  message: z.record(z.string(), z.unknown()),
});

/** A charge as the payer sees it: what the chain shows anyway, no order id, nothing of the platform's. */
const PublicCharge = z
  .object({
    period: z.number().int().nullable().openapi({ description: 'The period charged (0 = the first)' }),
    amount: z.string().openapi({ description: 'Human units' }),
    state: OrderStateSchema.openapi({ description: 'The charge\'s order state: pending_payment (on its way), confirmed, failed (nothing moved), partially_refunded, refunded' }),
    created_at: z.string().openapi({ description: 'When the charge was attempted' }),
    paid_at: z.string().nullable(),
    tx_hash: z.string().nullable(),
  })
  .openapi('SubscriptionCharge');

export const PublicSubscriptionAuthorization = z
  .object({
    id: z.string(),
    object: z.literal('subscription_authorization'),
    state: SubscriptionStateSchema,
    expires_at: z.string(),
    merchant: z.object({ name: z.string() }),
    platform: z.object({ name: z.string() }),
    amount: z.string(),
    computed_split: ComputedSplit,
    interval: IntervalSchema,
    interval_count: z.number().int(),
    period_seconds: z.number().int(),
    max_periods: z.number().int().nullable(),
    payer_address: z.string().nullable(),
    success_url: z.string().nullable(),
    cancel_url: z.string().nullable(),
    chain: z.object({
      chain_id: z.number().int(), name: z.string(), rpc_url: z.string().nullable(), confirmations_required: z.number().int(),
      block_explorer_url: z.string().nullable().openapi({ description: 'Base URL of the chain\'s explorer (a charge\'s tx_hash at <url>/tx/<hash>); null where none (devnet)' }),
    }),
    token: z.object({ symbol: z.string(), address: z.string() }),
    manager_address: z.string(),
    router_address: z.string(),
    typed_data: TypedData.openapi({ description: 'The SpendPermission to sign (eth_signTypedData_v4): set message.payer to the signing wallet; POST message.start back as `start`' }),
    allowance: z.object({
      spender: z.string().openapi({ description: 'The manager (never the router)' }),
      amount: z.string().openapi({ description: 'Base units to allow: amount × min(max_periods, 12)' }),
      periods_covered: z.number().int(),
      permit: z.object({
        typed_data: TypedData.openapi({ description: 'EIP-2612 Permit to the manager. message.owner is ?payer= (else the lock, else the zero address); message.nonce is the token\'s nonces(owner) only when nonce_filled, else a placeholder "0": read nonces(owner) from the token and fill both before signing' }),
        nonce_filled: z.boolean().openapi({ description: 'true: message.nonce is nonces(payer) read from the token for this request (?payer= given, not yet authorized, the chain answered within 3 s)' }),
      }).nullable().openapi({ description: 'Null where the token has no EIP-2612 domain matching its DOMAIN_SEPARATOR' }),
      approve: z.object({ to: z.string(), data: z.string(), function: z.string() }),
    }),
    authorized: z.object({
      permission: z.object({
        payer: z.string(), token: z.string(), merchant: z.string(), platform: z.string(), amount: z.string(), period: z.number().int(), start: z.number().int(), end: z.number().int(),
        serviceFeeBps: z.number().int(), platformFeeBps: z.number().int(), reserveBps: z.number().int(), salt: z.string(),
      }).openapi('SpendPermission', { description: 'The permission the payer signed (uint160/uint256 as decimal strings): the argument of the manager\'s revoke(p)' }),
      permission_hash: z.string().nullable(),
      payer: z.string().nullable(),
      start_at: z.string().openapi({ description: 'The signed start of period 0 (permission.start, ISO 8601)' }),
      end_at: z.string().nullable().openapi({ description: 'The signed end of the permission window (permission.end, ISO 8601): no charge at or after it; null when it runs until stopped' }),
      current_period_end: z.string().nullable(),
      next_charge_at: z.string().nullable(),
      periods_charged: z.number().int(),
      cancel_at_period_end: z.boolean(),
      cancel_reason: z.string().nullable(),
      canceled_at: z.string().nullable(),
      charges: z.array(PublicCharge).openapi({ description: 'The charges so far, newest first, at most 24 (failed attempts included)' }),
    }).nullable().openapi({ description: 'Null until the payer signs; then the signed permission (for revoke from the payer\'s wallet), the schedule and the charges' }),
  })
  .openapi('PublicSubscriptionAuthorization');
