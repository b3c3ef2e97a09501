/** Shapes of the API resources the pages read (see SPEC §2 and DESIGN §3–§4). */
export type List<T> = { object: 'list'; data: T[]; has_more: boolean; next_cursor: string | null };

export type Me = { user_id: string | null; platform_id: string | null; platform_name: string | null; auth_kind: string; onboarded: boolean };

export type SessionInfo = { user: { id: string; name: string; email: string }; session: { id: string; expiresAt: string } } | null;

export type Onboarded = {
  platform_id: string;
  name: string;
  secret_key: string;
  publishable_key: string;
  platform_wallet: string;
  chain_id: number;
  platform_fee_bps: number;
  default_reserve_bps: number;
};

export type ApiKey = {
  id: string;
  kind: 'secret' | 'publishable';
  hint: string;
  key: string | null;
  state: 'active' | 'revoked';
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
};

export type Merchant = {
  id: string;
  object: 'merchant';
  external_id: string;
  name: string;
  merchant_wallet: string;
  chain_id: number;
  reserve_bps: number;
  state: string;
  created_at: string;
};

export type Invitation = {
  id: string;
  external_id: string;
  suggested_name: string;
  state: 'pending' | 'completed' | 'expired';
  wallet: string | null;
  chain_id: number;
  reserve_bps?: number;
  expires_at: string;
  created_at: string;
  token?: string;
  url?: string;
};

export type PublicInvitation = {
  id: string;
  state: 'pending' | 'completed' | 'expired';
  external_id: string;
  suggested_name: string;
  chain_id: number;
  platform_name: string;
  expires_at: string;
  message?: string;
};

export type Split = {
  service_fee: string;
  platform_fee: string;
  merchant_gross: string;
  reserve_hold: string;
  merchant_available: string;
};

export type TypedData = {
  domain: { name: string; version: string; chainId: number; verifyingContract: string };
  primary_type: string;
  types: Record<string, { name: string; type: string }[]>;
  message: Record<string, string | number>;
};

export type OrderState = 'pending_payment' | 'confirmed' | 'partially_refunded' | 'refunded' | 'failed' | 'expired';

export type Order = {
  id: string;
  object: 'order';
  merchant_id: string;
  order_no: string;
  chain_id: number;
  token: string;
  amount: string;
  metadata: Record<string, unknown> | null;
  state: OrderState;
  pay_to: string;
  computed_split: Split;
  eip712: TypedData;
  signature: string;
  deadline_at: string;
  tx_hash: string | null;
  token_address?: string;
  payer_address?: string | null;
  paid_by?: string | null;
  refunded_amount?: string;
  checkout_session_id?: string | null;
  failure_reason?: string | null;
  created_at: string;
  confirmed_at: string | null;
};

export type Summary = {
  total: number;
  pending: number;
  confirmed: number;
  gross_24h: string;
  gross_daily?: { day: string; gross: string; count: number }[];
};

export type CheckoutSession = {
  id: string;
  object: 'checkout_session';
  state: 'open' | 'completed' | 'expired';
  expires_at: string;
  success_url: string | null;
  cancel_url: string | null;
  payer_address: string | null;
  merchant: { name: string };
  platform: { name: string };
  order: {
    id: string;
    order_no: string;
    state: OrderState;
    chain_id: number;
    token: string;
    token_address: string;
    amount: string;
    computed_split: Split;
    pay_to: string;
    eip712: TypedData;
    signature: string;
    deadline_at: string;
    tx_hash: string | null;
  };
  chain: { chain_id: number; name: string; rpc_url: string | null; confirmations_required: number; block_explorer_url: string | null };
};

export type CreatedSession = { id: string; session_token: string; url: string; state: string; order_id: string; expires_at: string };

export type WebhookEndpoint = {
  id: string;
  url: string;
  description: string | null;
  subscribed_events: string[];
  status: 'enabled' | 'disabled';
  disabled_reason: string | null;
  secret?: string;
  previous_secret_expires_at: string | null;
  created_at: string;
};

export type Delivery = {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  state: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
  delivered_at: string | null;
  created_at: string;
};

export type WebhookEvent = { id: string; type: string; created_at: string; data: { object: Record<string, unknown> } };

export type Refund = {
  id: string;
  order_id: string;
  amount: string;
  state: 'pending' | 'requires_funding' | 'completed' | 'failed';
  reason: string | null;
  reserve_portion: string | null;
  funding_required: string | null;
  pay_to: string;
  tx_hash: string | null;
  created_at: string;
  completed_at: string | null;
};

export const EVENT_TYPES = [
  'order.confirmed',
  'order.failed',
  'order.expired',
  'refund.completed',
  'refund.failed',
  'checkout.session.completed',
  'checkout.session.expired',
  'merchant.created',
  'settlement.completed',
  'webhook_endpoint.disabled',
] as const;

export const ALL_EVENTS = '*';

export const ORDER_STATES: OrderState[] = ['pending_payment', 'confirmed', 'partially_refunded', 'refunded', 'failed', 'expired'];

