import { formatUnits } from '../../lib/money.js';
import { computeSplit } from '../orders/split.js';
import type { SubscriptionRow } from './repo.js';

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** The split of one period's charge at the subscription's frozen rates (orders/split.ts: the manager's formula). */
export const splitOf = (s: Pick<SubscriptionRow, 'amount' | 'service_fee_bps' | 'platform_fee_bps' | 'reserve_bps'>) =>
  computeSplit(s.amount, s.service_fee_bps, s.platform_fee_bps, s.reserve_bps);

export const splitJson = (s: Parameters<typeof splitOf>[0]) => {
  const x = splitOf(s);
  return {
    service_fee: x.serviceFee.toString(), platform_fee: x.platformFee.toString(), merchant_gross: x.merchantGross.toString(),
    reserve_hold: x.reserveHold.toString(), merchant_available: x.merchantAvailable.toString(),
  };
};

/** GET/list/cancel answers and the subscription.* event object; `url` only in the creation answer. */
export const serializeSubscription = (s: SubscriptionRow, url: string | null = null) => ({
  id: s.id,
  object: 'subscription' as const,
  state: s.state,
  url,
  merchant_id: s.merchant_external_id,
  chain_id: s.chain_id,
  token: s.token,
  token_address: s.token_address,
  amount: formatUnits(s.amount),
  computed_split: splitJson(s),
  interval: s.interval,
  interval_count: s.interval_count,
  period_seconds: s.period_seconds,
  max_periods: s.max_periods,
  payer_address: s.payer_address,
  payer: s.payer,
  manager_address: s.manager_address,
  permission_hash: s.permission_hash,
  expires_at: s.expires_at.toISOString(),
  authorized_at: iso(s.authorized_at),
  current_period_start: iso(s.current_period_start),
  current_period_end: iso(s.current_period_end),
  next_charge_at: iso(s.next_charge_at),
  periods_charged: s.next_period,
  failed_attempts: s.failed_attempts,
  cancel_at_period_end: s.cancel_at_period_end,
  cancel_reason: s.cancel_reason,
  canceled_at: iso(s.canceled_at),
  metadata: s.metadata,
  success_url: s.success_url,
  cancel_url: s.cancel_url,
  created_at: s.created_at.toISOString(),
});
export type SerializedSubscription = ReturnType<typeof serializeSubscription>;
