import { sql, type RawBuilder } from 'kysely';
import { USDC_DECIMALS } from '../../lib/money.js';

/**
 * serializeOrder (serialize.ts) as a SQL expression over an orders row, for a statement that writes an
 * order's event body without the row leaving the database (the indexer's batched confirmation). The two
 * must give the same JSON for every row: test/api/order-json-sql.test.ts compares them over rows in every
 * state, with nulls, microsecond timestamps and amounts of every fraction length, on both databases.
 */
const SCALE = 10 ** USDC_DECIMALS;

/** formatUnits: "<whole>.<fraction>", trailing zeros trimmed down to two places. */
function units(col: RawBuilder<unknown>): RawBuilder<string> {
  const frac = sql`rtrim(lpad((abs(${col}) % ${sql.lit(SCALE)})::text, ${sql.lit(USDC_DECIMALS)}, '0'), '0')`;
  return sql<string>`(case when ${col} < 0 then '-' else '' end || (abs(${col}) / ${sql.lit(SCALE)})::text || '.' || rpad(${frac}, greatest(2, length(${frac})), '0'))`;
}

/** Date#toISOString: UTC, milliseconds (truncated, as a JS Date read from the row holds them), "Z". */
const iso = (col: RawBuilder<unknown>) => sql<string | null>`to_char(${col} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** The public order object of row `alias` (a jsonb value), key for key serializeOrder's. */
export function orderJsonSql(alias: string): RawBuilder<unknown> {
  const c = (name: string) => sql.ref(`${alias}.${name}`) as RawBuilder<unknown>;
  return sql`jsonb_build_object(
    'id', ${c('id')}, 'object', 'order', 'merchant_id', ${c('merchant_external_id')}, 'order_no', ${c('order_no')},
    'chain_id', ${c('chain_id')}, 'token', ${c('token')}, 'token_address', ${c('token_address')}, 'amount', ${units(c('amount'))},
    'metadata', ${c('metadata')}, 'state', ${c('state')}, 'pay_to', ${c('pay_to')},
    'computed_split', jsonb_build_object(
      'service_fee', ${c('service_fee')}::text, 'platform_fee', ${c('platform_fee')}::text, 'merchant_gross', ${c('merchant_gross')}::text,
      'reserve_hold', ${c('reserve_hold')}::text, 'merchant_available', ${c('merchant_available')}::text),
    'eip712', ${c('eip712')}, 'signature', ${c('signature')}, 'deadline_at', ${iso(c('deadline_at'))},
    'payer_address', ${c('payer_address')}, 'paid_by', ${c('paid_by')}, 'tx_hash', ${c('tx_hash')},
    'refunded_amount', ${units(c('refunded_amount'))}, 'reserve_remaining', ${c('reserve_remaining')}::text,
    'checkout_session_id', ${c('checkout_session_id')}, 'subscription_id', ${c('subscription_id')},
    'subscription_period', ${c('subscription_period')}, 'failure_reason', ${c('failure_reason')},
    'created_at', ${iso(c('created_at'))}, 'confirmed_at', ${iso(c('confirmed_at'))},
    'capture_method', ${c('capture_method')}, 'capture_before', ${iso(c('capture_before'))},
    'amount_authorized', ${units(c('amount_authorized'))}, 'amount_captured', ${units(c('amount_captured'))},
    'capture_requested_at', ${iso(c('capture_requested_at'))}, 'void_requested_at', ${iso(c('void_requested_at'))},
    'void_reason', ${c('void_reason')}, 'deposit_address', ${c('deposit_address')}, 'refund_address', ${c('refund_address')},
    'amount_received', ${c('amount_received')}::text, 'amount_due', greatest(${c('amount')} - ${c('amount_received')}, 0)::text)`;
}
