-- Subscriptions (issue 30; docs/subscriptions.md): the payer signs one SpendPermission for the
-- SubscriptionManager; each period's charge is an order (orders.subscription_id) paid by the operator's
-- charge(…) through the router's module hook (payFromModule), split and reserved as any order.
create table subscriptions (
  id text primary key,                                  -- sub_…; the permission's salt is keccak256(id)
  platform_id text not null references platforms(id),
  merchant_id text not null references merchants(id),
  merchant_external_id text not null,
  chain_id integer not null,
  token text not null,
  token_address text not null,
  manager_address text not null,
  amount bigint not null check (amount > 0),            -- per period, base units
  interval text not null check (interval in ('day', 'week', 'month', 'year')),
  interval_count integer not null check (interval_count between 1 and 12),
  period_seconds integer not null check (period_seconds > 0),
  max_periods integer check (max_periods > 0),
  -- The terms the payer signs, frozen at creation (later fee or wallet changes never alter a subscription).
  service_fee_bps integer not null,
  platform_fee_bps integer not null,
  reserve_bps integer not null,
  merchant_wallet text not null,
  platform_wallet text not null,
  metadata jsonb not null default '{}',
  success_url text,
  cancel_url text,
  payer_address text,                                   -- the lock given at creation
  token_hash text not null unique,                      -- sha256 of the sub_live_… link token
  expires_at timestamptz not null,                      -- the link's end, chain clock
  state text not null check (state in ('incomplete', 'active', 'past_due', 'canceled', 'expired')),
  -- Authorization (POST /v1/subscriptions/authorize/{token}).
  payer text,
  permission jsonb,                                     -- the SpendPermission signed (decimal strings)
  permission_hash text unique,
  payer_signature text,                                 -- as the manager checks it (an ERC-6492 wrapper removed)
  permit jsonb,                                         -- EIP-2612 permit to the manager, used by the first charge
  start_at timestamptz,
  end_at timestamptz,                                   -- exclusive; null: no end
  authorized_at timestamptz,
  authorize_failures integer not null default 0,        -- refused signatures: the public door's bound per link
  -- Schedule (chain clock): the period charged next, when, and the charge in flight.
  next_period integer not null default 0,
  next_charge_at timestamptz,
  charge_order_id text,
  failed_attempts integer not null default 0,           -- failed charges of the current period (dunning)
  current_period_start timestamptz,
  current_period_end timestamptz,
  cancel_at_period_end boolean not null default false,
  cancel_reason text check (cancel_reason in ('payment_failed', 'payer_revoked', 'canceled_by_platform', 'ended')),
  canceled_at timestamptz,
  revoke_requested_at timestamptz,
  created_at timestamptz(3) not null default now(),
  updated_at timestamptz not null default now()
);
create index subscriptions_platform_idx on subscriptions (platform_id, created_at desc, id desc);
create index subscriptions_due_idx on subscriptions (chain_id, next_charge_at) where state in ('active', 'past_due') and charge_order_id is null;
create index subscriptions_link_due_idx on subscriptions (chain_id, expires_at) where state = 'incomplete';

alter table orders add column subscription_id text references subscriptions(id);
alter table orders add column subscription_period integer;
-- At most one live charge per period: a failed (or expired) one may be followed by a retry, never doubled.
create unique index orders_subscription_period_live on orders (subscription_id, subscription_period)
  where subscription_id is not null and state not in ('failed', 'expired');
create index orders_subscription_idx on orders (subscription_id, created_at desc) where subscription_id is not null;

-- An operator revocation is sent once per subscription.
create unique index operator_txs_subscription_revoke_once on operator_txs (chain_id, ref_id) where purpose = 'subscription_revoke';
