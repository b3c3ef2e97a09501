import { z } from '@hono/zod-openapi';
import { ExternalIdSchema } from '../../lib/schemas.js';

const Amount = z.string().openapi({ description: 'Decimal string, human units (USDC)', example: '12.50' });
const Address = z.string().nullable().openapi({ description: 'Hex address; null where the service does not know it' });
const Iso = z.string().datetime({ offset: true });

import { BALANCE_TRANSACTION_TYPES } from './types.js';
export { BALANCE_TRANSACTION_TYPES, type BalanceTransactionType } from './types.js';

export const BalanceQuery = z
  .object({ merchant_id: ExternalIdSchema.optional().openapi({ description: "Only this merchant (its external_id)" }) })
  .strict();

const Totals = {
  gross_volume: Amount.openapi({ description: 'Amount of every paid order (for capture_method manual: the captured amount)' }),
  platform_fees: Amount.openapi({ description: 'Platform fees earned (sent to the platform wallet at payment)' }),
  reserve_held: Amount.openapi({ description: 'Reserve the router still holds' }),
  reserve_releasable: Amount.openapi({ description: 'Part of reserve_held whose hold has ended on the indexed chain time' }),
  next_release_at: z.string().nullable().openapi({ description: 'When the next still-held reserve becomes releasable (chain time), or null' }),
  released: Amount.openapi({ description: 'Reserve released to merchant wallets' }),
  refunded_from_reserve: Amount.openapi({ description: 'Refunds the router paid out of reserves' }),
  refunded_from_submitter: Amount.openapi({ description: 'Refunds funded by the wallet that submitted them (platform or merchant)' }),
  authorized: Amount.openapi({ description: 'Held by the router for authorized orders not captured yet (capture_method manual); not in gross_volume until captured' }),
};
export const MerchantBalance = z.object({ merchant_id: z.string(), ...Totals }).openapi('MerchantBalance');
export const Balance = z
  .object({
    object: z.literal('balance'),
    token: z.literal('USDC'),
    as_of: z.string().nullable().openapi({ description: 'Indexed chain time (block time of the indexer cursor) the releasable amounts are decided on' }),
    ...Totals,
    merchants: z.array(MerchantBalance).openapi({ description: 'Per merchant with any paid (or authorized) order, by merchant_id' }),
  })
  .openapi('Balance');

export const BalanceTransactionsQuery = z
  .object({
    merchant_id: ExternalIdSchema.optional(),
    type: z.enum(BALANCE_TRANSACTION_TYPES).optional(),
    from: Iso.optional().openapi({ description: 'Block time at or after (ISO-8601)' }),
    to: Iso.optional().openapi({ description: 'Block time strictly before (ISO-8601)' }),
    limit: z.coerce.number().int().min(1).max(100).default(20).openapi({ description: 'Page size, 1..100 (default 20)' }),
    cursor: z.string().max(200).optional().openapi({ description: 'next_cursor of the previous page' }),
  })
  .strict();

export const BalanceTransaction = z
  .object({
    id: z.string().openapi({ description: 'Stable id (btx_…), derived from the source row and leg' }),
    object: z.literal('balance_transaction'),
    type: z.enum(BALANCE_TRANSACTION_TYPES),
    status: z.enum(['posted', 'failed']).openapi({ description: 'failed: a reserve release the token refused; it moved nothing' }),
    amount: Amount,
    from_address: Address,
    to_address: Address,
    merchant_id: z.string(),
    order_id: z.string(),
    refund_id: z.string().nullable(),
    settlement_id: z.string().nullable(),
    chain_id: z.number().int(),
    tx_hash: z.string().nullable(),
    log_index: z.number().int().nullable(),
    event_key: z.string().openapi({ description: 'chain_logs key of the router event this row comes from' }),
    block_time: z.string(),
  })
  .openapi('BalanceTransaction');

export const NetVolumeQuery = z
  .object({ days: z.enum(['7', '30', '90']).default('30').openapi({ description: '7, 30 or 90 (default 30)' }) })
  .strict();

export const NetVolume = z
  .object({
    object: z.literal('net_volume'),
    days: z.number().int(),
    timezone: z.literal('UTC'),
    gross: Amount,
    refunded: Amount,
    net: Amount,
    data: z.array(z.object({ day: z.string().openapi({ example: '2026-11-24' }), gross: Amount, refunded: Amount, net: Amount, payments: z.number().int(), refunds: z.number().int() })),
  })
  .openapi('NetVolume');
