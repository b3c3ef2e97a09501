import { sql, type RawBuilder } from 'kysely';
import type { BalanceTransactionType, LedgerFilter } from './types.js';

/** One query of the ledger's UNION ALL: the rows of one type, cut to the page (balanceRepo.ledgerPage). */
export type Branch = { type: BalanceTransactionType; build: (f: LedgerFilter) => RawBuilder<unknown> };

const merchantIs = (col: string, m: string | undefined) => (m === undefined ? sql`` : sql`and ${sql.ref(col)} = ${m}`);

/** Keyset and range on a branch's block-time column `t` and its id expression. */
function window(t: string, id: RawBuilder<unknown>, f: LedgerFilter) {
  const from = f.from ? sql`and ${sql.ref(t)} >= ${f.from}` : sql``;
  const to = f.to ? sql`and ${sql.ref(t)} < ${f.to}` : sql``;
  const before = f.before ? sql`and ${sql.ref(t)} <= ${f.before.time} and (${sql.ref(t)} < ${f.before.time} or ${id} < ${f.before.id})` : sql``;
  return sql`${from} ${to} ${before} order by ${sql.ref(t)} desc, ${id} desc limit ${f.limit}`;
}

type OrderLeg = {
  leg: string; amount: RawBuilder<unknown>; from: RawBuilder<unknown>; to: (f: LedgerFilter) => RawBuilder<unknown>;
  /** The block-time column of the router event, its transaction, its chain_logs key prefix, and which orders have it. */
  time: string; tx: RawBuilder<unknown>; event: string; where: RawBuilder<unknown>;
};

/** A leg of an order's own router event (payment, authorization, capture, void or reclaim): one row per order. */
const orderLeg = (type: BalanceTransactionType, l: OrderLeg): Branch => ({
  type,
  build: (f) => {
    const id = sql`('btx_' || substr(o.id, 5) || ${l.leg})`;
    return sql`select ${id} as id, ${type}::text as type, 'posted'::text as status, ${l.amount} as amount,
      ${l.from}::text as from_address, ${l.to(f)}::text as to_address, o.merchant_external_id as merchant_id, o.id as order_id,
      null::text as refund_id, null::text as settlement_id, o.chain_id, ${l.tx} as tx_hash, ${sql.ref(l.time)} as block_time,
      ${`${l.event}:`} || lower(o.onchain_id) as event_key
      from orders o where o.platform_id = ${f.platformId} and ${sql.ref(l.time)} is not null and ${l.where} and ${l.amount} > 0
      ${merchantIs('o.merchant_external_id', f.merchantId)} ${window(l.time, id, f)}`;
  },
});

/**
 * The OrderPaid legs. An automatic payment is pulled from the payer in that transaction; a captured authorization
 * was already held by the router (authorization_hold), so its legs leave from the router, and its reserve leg is
 * router → router (the held money stays, now as the order's reserve).
 */
const paymentLeg = (type: BalanceTransactionType, leg: string, amount: string, to: (f: LedgerFilter) => RawBuilder<unknown>): Branch => orderLeg(type, {
  leg, amount: sql.ref(`o.${amount}`), to, time: 'o.paid_at', tx: sql`o.tx_hash`, event: 'OrderPaid', where: sql`true`,
  from: sql`case when o.capture_method = 'manual' then o.pay_to else o.paid_by end`,
});

/** The authorization's whole amount going back to the payer (a void or a reclaim), from the router. */
const returnLeg = (type: BalanceTransactionType, leg: string, event: string, reclaimed: boolean): Branch => orderLeg(type, {
  leg, amount: sql`o.amount_authorized`, from: sql`o.pay_to`, to: () => sql`o.paid_by`, time: 'o.voided_at', tx: sql`o.void_tx_hash`, event,
  where: reclaimed ? sql`o.void_reason = 'reclaimed_by_payer'` : sql`o.void_reason <> 'reclaimed_by_payer'`,
});

const refundLeg = (type: BalanceTransactionType, leg: string, amount: string, from: RawBuilder<unknown>): Branch => ({
  type,
  build: (f) => {
    const id = sql`('btx_' || substr(r.id, 4) || ${leg})`;
    return sql`select ${id} as id, ${type}::text as type, 'posted'::text as status, ${sql.ref(`r.${amount}`)} as amount,
      ${from}::text as from_address, r.to_address, r.merchant_external_id as merchant_id, o.id as order_id,
      r.id as refund_id, null::text as settlement_id, o.chain_id, r.tx_hash, r.completed_at as block_time,
      'Refunded:' || lower(r.onchain_id) as event_key
      from refunds r join orders o on o.id = r.order_id
      where r.platform_id = ${f.platformId} and r.state = 'completed' and ${sql.ref(`r.${amount}`)} > 0
      ${merchantIs('r.merchant_external_id', f.merchantId)} ${window('r.completed_at', id, f)}`;
  },
});

const releaseLeg = (type: BalanceTransactionType, leg: string, state: string): Branch => ({
  type,
  build: (f) => {
    const id = sql`('btx_' || substr(s.id, 5) || substr(i.order_id, 5) || ${leg})`;
    const event = type === 'reserve_release' ? 'ReserveReleased:' : 'ReserveReleaseFailed:';
    return sql`select ${id} as id, ${type}::text as type, ${state === 'released' ? 'posted' : 'failed'}::text as status,
      coalesce(i.released_amount, i.amount) as amount, o.pay_to as from_address, o.merchant_wallet as to_address,
      o.merchant_external_id as merchant_id, o.id as order_id, null::text as refund_id, s.id as settlement_id, s.chain_id,
      s.tx_hash, s.confirmed_at as block_time, ${event} || lower(s.onchain_id) || ':' || lower(o.onchain_id) as event_key
      from settlements s join settlement_items i on i.settlement_id = s.id join orders o on o.id = i.order_id
      where s.confirmed_at is not null and i.platform_id = ${f.platformId} and i.state = ${state}
      ${f.merchantId === undefined ? sql`` : sql`and o.platform_id = ${f.platformId} and o.paid_at is not null`}
      ${merchantIs('o.merchant_external_id', f.merchantId)} ${window('s.confirmed_at', id, f)}`;
  },
});

export const BRANCHES: Branch[] = [
  // The treasury the router paid the fee to: the last ServiceTreasuryUpdated before the payment's log (indexed
  // from the router's deployment); SERVICE_TREASURY only for payments older than any indexed update.
  paymentLeg('payment_service_fee', 'sf', 'service_fee', (f) => sql`coalesce((select t.treasury from router_treasury_updates t
    where t.chain_id = o.chain_id and t.router = lower(o.pay_to) and (t.block_number, t.log_index) < (o.block_number,
      coalesce((select l.log_index from chain_logs l where l.chain_id = o.chain_id and l.event_key = 'OrderPaid:' || lower(o.onchain_id)), 2147483647))
    order by t.block_number desc, t.log_index desc limit 1), ${f.serviceTreasury})`),
  paymentLeg('payment_platform_fee', 'pf', 'platform_fee', () => sql`o.platform_wallet`),
  paymentLeg('payment_merchant_available', 'ma', 'merchant_available', () => sql`o.merchant_wallet`),
  paymentLeg('payment_reserve_hold', 'rh', 'reserve_hold', () => sql`o.pay_to`),
  // Charge later: the payer's money into the router (OrderAuthorized), the uncaptured rest back with the capture
  // (OrderCaptured), or all of it back (AuthorizationVoided / AuthorizationReclaimed).
  orderLeg('authorization_hold', {
    leg: 'ah', amount: sql`o.amount_authorized`, from: sql`o.paid_by`, to: () => sql`o.pay_to`, time: 'o.authorized_at',
    tx: sql`o.authorization_tx_hash`, event: 'OrderAuthorized', where: sql`true`,
  }),
  orderLeg('authorization_return', {
    leg: 'ar', amount: sql`(o.amount_authorized - o.amount_captured)`, from: sql`o.pay_to`, to: () => sql`o.paid_by`, time: 'o.paid_at',
    tx: sql`o.tx_hash`, event: 'OrderCaptured', where: sql`o.capture_method = 'manual'`,
  }),
  returnLeg('authorization_void', 'av', 'AuthorizationVoided', false),
  returnLeg('authorization_reclaim', 'ac', 'AuthorizationReclaimed', true),
  refundLeg('refund_from_reserve', 'rr', 'reserve_portion', sql`o.pay_to`),
  // The funder: the sender of the USDC transfer the Refunded event's fromSubmitter accounts for (null only for
  // refunds completed before migration 018).
  refundLeg('refund_from_submitter', 'rs', 'funding_required', sql`r.funded_by`),
  releaseLeg('reserve_release', 'rl', 'released'),
  releaseLeg('reserve_release_failed', 'rf', 'release_failed'),
];
