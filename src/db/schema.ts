import type { ColumnType, Generated } from 'kysely';
import type { OrderState } from '../lib/order-states.js';

/** Kysely table types. They mirror migrations/*.sql; int8 columns are bigint on both drivers. */
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
type Json<T = unknown> = ColumnType<T, string, string>;
type Int8 = ColumnType<bigint, bigint | string | number, bigint | string | number>;
type NullableInt8 = ColumnType<bigint | null, bigint | string | number | null | undefined, bigint | string | number | null>;

export interface PlatformsTable {
  id: string;
  user_id: string;
  name: string;
  platform_wallet: string;
  chain_id: number;
  platform_fee_bps: number;
  default_reserve_bps: number;
  created_at: Generated<Date>;
  /** Migration 012: null = the configured default. */
  rate_limit_per_second: Generated<number | null>;
  rate_limit_burst: Generated<number | null>;
}

export interface ApiKeysTable {
  id: string;
  platform_id: string;
  kind: 'secret' | 'publishable';
  key_hash: string;
  key_hint: string;
  publishable_key: string | null;
  created_at: Generated<Date>;
  last_used_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
}

/** Migration 023: every creation, roll and revocation of a key (GET /v1/developers/audit_log). */
export interface KeyAuditLogTable {
  id: string;
  platform_id: string;
  action: 'key.created' | 'key.rolled' | 'key.revoked';
  key_id: string;
  key_kind: 'secret' | 'publishable';
  key_hint: string;
  actor_type: 'session' | 'secret_key';
  actor_user_id: string | null;
  actor_email: string | null;
  actor_key_id: string | null;
  client_address: string | null;
  created_at: Timestamp;
}

export interface IdempotencyKeysTable {
  scope: string;
  key: string;
  method: string;
  path: string;
  fingerprint: string;
  status: number | null;
  response_body: string | null;
  locked_at: NullableTimestamp;
  created_at: Generated<Date>;
}

export interface MerchantsTable {
  id: string;
  platform_id: string;
  external_id: string;
  name: string;
  merchant_wallet: string;
  chain_id: number;
  reserve_bps: number;
  state: Generated<string>;
  invitation_id: string | null;
  created_at: Generated<Date>;
}

export interface InvitationsTable {
  id: string;
  platform_id: string;
  token_hash: string;
  external_id: string;
  suggested_name: string;
  chain_id: number;
  reserve_bps: number;
  state: 'pending' | 'completed' | 'expired';
  expires_at: Timestamp;
  wallet: string | null;
  merchant_id: string | null;
  completed_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
  created_at: Generated<Date>;
}

export type { OrderState } from '../lib/order-states.js';

export interface OrdersTable {
  id: string;
  platform_id: string;
  merchant_id: string;
  merchant_external_id: string;
  order_no: string;
  order_no_released: Generated<boolean>;
  chain_id: number;
  token: string;
  token_address: string;
  amount: Int8;
  service_fee_bps: number;
  platform_fee_bps: number;
  reserve_bps: number;
  service_fee: Int8;
  platform_fee: Int8;
  merchant_gross: Int8;
  reserve_hold: Int8;
  merchant_available: Int8;
  metadata: Json<Record<string, unknown>>;
  state: OrderState;
  pay_to: string;
  onchain_id: string;
  payer_address: string | null;
  merchant_wallet: string;
  platform_wallet: string;
  eip712: Json<Record<string, unknown>>;
  signature: string;
  deadline_at: Timestamp;
  checkout_session_id: string | null;
  paid_by: string | null;
  tx_hash: string | null;
  block_number: ColumnType<bigint | null, bigint | number | null | undefined, bigint | number | null>;
  paid_at: NullableTimestamp;
  /** OrderPaid.releaseAfter: when the reserve may be released, on the chain clock (migration 010). */
  reserve_release_at: NullableTimestamp;
  refunded_amount: ColumnType<bigint, bigint | undefined, bigint | string>;
  reserve_remaining: ColumnType<bigint, bigint | undefined, bigint | string>;
  settlement_id: string | null;
  failure_reason: string | null;
  confirmed_at: NullableTimestamp;
  failed_at: NullableTimestamp;
  expired_at: NullableTimestamp;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
  // Charge later (migration 024).
  capture_method: Generated<CaptureMethod>;
  capture_before: NullableTimestamp;
  amount_authorized: ColumnType<bigint, bigint | undefined, bigint | string>;
  amount_captured: ColumnType<bigint, bigint | undefined, bigint | string>;
  authorized_at: NullableTimestamp;
  authorization_tx_hash: string | null;
  capture_requested_at: NullableTimestamp;
  capture_requested_amount: ColumnType<bigint | null, bigint | null | undefined, bigint | string | null>;
  capture_attempts: Generated<number>;
  void_requested_at: NullableTimestamp;
  void_requested_reason: VoidRequestReason | null;
  void_reason: VoidReason | null;
  voided_at: NullableTimestamp;
  void_tx_hash: string | null;
  // Subscriptions (migration 029): the subscription and period a charge order pays.
  subscription_id: Generated<string | null>;
  subscription_period: Generated<number | null>;
  // Deposit addresses (migration 035).
  deposit_address: Generated<string | null>;
  refund_address: Generated<string | null>;
  amount_received: ColumnType<bigint, bigint | undefined, bigint | string>;
}

export interface DepositsTable {
  order_id: string;
  platform_id: string;
  chain_id: number;
  address: string;
  refund_to: string;
  factory: string;
  deadline: ColumnType<bigint, bigint, bigint>;
  signature: string;
  sweep_pending: Generated<boolean>;
  sweeps_sent: Generated<number>;
  sweep_refused: string | null;
  sweep_gas_wei: ColumnType<string, string | undefined, string>;
  sweep_failures: Generated<number>;
  next_sweep_at: NullableTimestamp;
  amount_returned: ColumnType<bigint, bigint | undefined, bigint | string>;
  watch_until: Timestamp;
  created_at: Generated<Date>;
}

export type CaptureMethod = 'automatic' | 'manual';
export type VoidRequestReason = 'requested' | 'authorization_expired';
/** Why an authorization ended without a capture: the service's void (asked, or its window ended), or the payer's reclaim. */
export type VoidReason = VoidRequestReason | 'reclaimed_by_payer';

export type SubscriptionState = 'incomplete' | 'active' | 'past_due' | 'canceled' | 'expired';
export type SubscriptionInterval = 'day' | 'week' | 'month' | 'year';
export type SubscriptionCancelReason = 'payment_failed' | 'payer_revoked' | 'canceled_by_platform' | 'ended';

/** Migration 029: a payer's one authorization (SpendPermission) and the schedule of its charges (chain clock). */
export interface SubscriptionsTable {
  id: string;
  platform_id: string;
  merchant_id: string;
  merchant_external_id: string;
  chain_id: number;
  token: string;
  token_address: string;
  manager_address: string;
  amount: Int8;
  interval: SubscriptionInterval;
  interval_count: number;
  period_seconds: number;
  max_periods: number | null;
  service_fee_bps: number;
  platform_fee_bps: number;
  reserve_bps: number;
  merchant_wallet: string;
  platform_wallet: string;
  metadata: Json<Record<string, unknown>>;
  success_url: string | null;
  cancel_url: string | null;
  payer_address: string | null;
  token_hash: string;
  expires_at: Timestamp;
  state: SubscriptionState;
  payer: string | null;
  permission: Json<Record<string, string>> | null;
  permission_hash: string | null;
  payer_signature: string | null;
  permit: Json<Record<string, string>> | null;
  start_at: NullableTimestamp;
  end_at: NullableTimestamp;
  authorized_at: NullableTimestamp;
  authorize_failures: Generated<number>;
  next_period: Generated<number>;
  next_charge_at: NullableTimestamp;
  charge_order_id: string | null;
  failed_attempts: Generated<number>;
  current_period_start: NullableTimestamp;
  current_period_end: NullableTimestamp;
  cancel_at_period_end: Generated<boolean>;
  cancel_reason: SubscriptionCancelReason | null;
  canceled_at: NullableTimestamp;
  revoke_requested_at: NullableTimestamp;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface CheckoutSessionsTable {
  id: string;
  platform_id: string;
  order_id: string;
  token_hash: string;
  state: 'open' | 'completed' | 'expired';
  success_url: string | null;
  cancel_url: string | null;
  payer_address: string | null;
  expires_at: Timestamp;
  completed_at: NullableTimestamp;
  created_at: Generated<Date>;
  /** Migration 027. */
  fee_display: Generated<'itemized' | 'total_only'>;
  /** Migration 035: what a late transfer to the order's deposit address gets. */
  late_payment: Generated<'return' | 'accept'>;
}

export interface WebhookEndpointsTable {
  id: string;
  platform_id: string;
  url: string;
  subscribed_events: Json<string[]>;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: NullableTimestamp;
  /** Migration 013: start of the current run of failed attempts; null after a success. */
  failing_since: Generated<Date | null>;
  disabled_at: NullableTimestamp;
  disabled_reason: string | null;
  deleted_at: NullableTimestamp;
  description: string | null;
  created_at: Generated<Date>;
  /** Migration 027: paused by the platform; its deliveries wait. */
  paused_at: NullableTimestamp;
}

export interface EventsTable {
  id: string;
  platform_id: string;
  type: string;
  data: Json<Record<string, unknown>>;
  created_at: Generated<Date>;
  /** Migration 032: the writing transaction (xid8, as a decimal string; 0 before it), GET /v1/events?after=… */
  tx: Generated<string>;
}

export interface WebhookDeliveriesTable {
  id: string;
  event_id: string;
  endpoint_id: string;
  platform_id: string;
  state: 'pending' | 'succeeded' | 'failed';
  attempts: Generated<number>;
  next_attempt_at: Timestamp;
  locked_until: NullableTimestamp;
  last_status: number | null;
  last_error: string | null;
  delivered_at: NullableTimestamp;
  lease_token: string | null;
  retry_from: Generated<number>;
  created_at: Generated<Date>;
  /** Migration 032: when the last recorded attempt was made (kept when the retention pass prunes attempt rows). */
  last_attempt_at: NullableTimestamp;
  /** Migration 034: its event's created_at, the partition key (a delivery's week is its event's). */
  event_created_at: ColumnType<Date, Date | string, Date | string>;
}

export interface WebhookAttemptsTable {
  id: Generated<bigint>;
  delivery_id: string;
  attempted_at: Generated<Date>;
  status: number | null;
  error: string | null;
  duration_ms: number;
  /** Migration 027: the attempt as sent and answered (null for attempts recorded before it). */
  request_url: string | null;
  request_headers: Json<Record<string, string>> | null;
  response_headers: Json<Record<string, string>> | null;
  response_body: string | null;
}

/** Migration 028: the platform's API requests (GET /v1/developers/request_logs). */
export interface RequestLogsTable {
  id: Generated<bigint>;
  platform_id: string;
  request_id: string;
  method: string;
  path: string;
  status: number;
  idempotency_key: string | null;
  principal_type: 'secret_key' | 'publishable_key' | 'session';
  key_id: string | null;
  user_id: string | null;
  duration_ms: number;
  error_code: string | null;
  request_body: string | null;
  response_body: string | null;
  created_at: Date;
}

export interface ChainCursorsTable {
  chain_id: number;
  last_block: Int8;
  last_block_hash: string | null;
  last_block_time: NullableTimestamp;
  updated_at: Generated<Date>;
}

export interface ChainCursorMarksTable {
  chain_id: number;
  block: Int8;
  hash: string;
}

export interface RouterTreasuryUpdatesTable {
  chain_id: number;
  router: string;
  block_number: Int8;
  log_index: number;
  tx_hash: string;
  previous: string;
  treasury: string;
  block_time: Date;
}

export interface ChainLogsTable {
  chain_id: number;
  tx_hash: string;
  log_index: number;
  block_number: Int8;
  block_hash: string;
  event_name: string;
  onchain_id: string | null;
  event_key: string;
  applied_at: Generated<Date>;
}

export interface UnmatchedTransfersTable {
  id: string;
  chain_id: number;
  token: string;
  from_address: string;
  value: Int8;
  tx_hash: string;
  block_number: Int8;
  block_time: Timestamp;
  log_index: number;
  event_key: string;
  recovered_tx_hash: string | null;
  recovered_at: NullableTimestamp;
  /** The sender and value matched an open verified x402 payment: its receipt is to be read (migration 031). */
  receipt_due: Generated<boolean>;
  /** The x402 payment whose front-run authorization made this transfer. */
  x402_payment_id: string | null;
  resolved_at: NullableTimestamp;
  resolution: 'attributed' | 'returned' | null;
  resolution_tx_hash: string | null;
  created_at: Generated<Date>;
}

export interface IndexerChainsTable {
  chain_id: number;
  enabled: Generated<boolean>;
  lease_holder: string | null;
  lease_until: NullableTimestamp;
  heartbeat_at: NullableTimestamp;
  head: NullableInt8;
  target: NullableInt8;
  finality: string | null;
  finality_source: string | null;
  last_error: string | null;
  last_error_at: NullableTimestamp;
  consecutive_errors: Generated<number>;
  logs_applied: Generated<bigint>;
  last_run_at: NullableTimestamp;
}

export interface ChainAlertsTable {
  id: Generated<bigint>;
  chain_id: number;
  kind: string;
  detail: Json<Record<string, unknown>>;
  created_at: Generated<Date>;
}

export type RefundState = 'pending' | 'requires_funding' | 'completed' | 'failed';

export interface RefundsTable {
  id: string;
  platform_id: string;
  order_id: string;
  amount: Int8;
  state: RefundState;
  reason: string | null;
  metadata: Json<Record<string, unknown>>;
  reserve_portion: Int8;
  funding_required: Int8;
  funded_by: ColumnType<string | null, string | null | undefined, string | null>;
  onchain_id: string;
  to_address: string;
  pay_to: string;
  eip712: Json<Record<string, unknown>>;
  signature: string;
  deadline_at: Timestamp;
  tx_hash: string | null;
  failure_reason: string | null;
  created_at: Generated<Date>;
  completed_at: NullableTimestamp;
}

export interface SettlementsTable {
  id: string;
  chain_id: number;
  onchain_id: string;
  state: 'submitted' | 'confirmed' | 'failed';
  order_count: number;
  total: Int8;
  tx_hash: string | null;
  error: string | null;
  created_at: Generated<Date>;
  confirmed_at: NullableTimestamp;
}

export interface DB {
  platforms: PlatformsTable;
  api_keys: ApiKeysTable;
  key_audit_log: KeyAuditLogTable;
  idempotency_keys: IdempotencyKeysTable;
  merchants: MerchantsTable;
  invitations: InvitationsTable;
  orders: OrdersTable;
  deposits: DepositsTable;
  checkout_sessions: CheckoutSessionsTable;
  subscriptions: SubscriptionsTable;
  webhook_endpoints: WebhookEndpointsTable;
  events: EventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  chain_cursors: ChainCursorsTable;
  chain_cursor_marks: ChainCursorMarksTable;
  router_treasury_updates: RouterTreasuryUpdatesTable;
  chain_logs: ChainLogsTable;
  chain_alerts: ChainAlertsTable;
  unmatched_transfers: UnmatchedTransfersTable;
  indexer_chains: IndexerChainsTable;
  refunds: RefundsTable;
  settlements: SettlementsTable;
  request_logs: RequestLogsTable;
}
