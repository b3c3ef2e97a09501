-- Sub-merchants, invitations, orders, checkout sessions. Money columns are int8 base units.
create table merchants (
  id text primary key,
  platform_id text not null references platforms(id),
  external_id text not null,
  name text not null,
  merchant_wallet text not null,
  chain_id integer not null,
  reserve_bps integer not null check (reserve_bps between 0 and 10000),
  state text not null default 'active',
  invitation_id text,
  created_at timestamptz not null default now(),
  unique (platform_id, external_id)
);
create index merchants_platform_idx on merchants (platform_id, created_at desc, id desc);

create table invitations (
  id text primary key,
  platform_id text not null references platforms(id),
  token_hash text not null unique,
  external_id text not null,
  suggested_name text not null,
  chain_id integer not null,
  reserve_bps integer not null check (reserve_bps between 0 and 10000),
  state text not null check (state in ('pending', 'completed', 'expired')),
  expires_at timestamptz not null,
  wallet text,
  merchant_id text references merchants(id),
  completed_at timestamptz,
  created_at timestamptz not null default now()
);
create index invitations_platform_idx on invitations (platform_id, created_at desc, id desc);
create index invitations_pending_idx on invitations (expires_at) where state = 'pending';
-- At most one pending invitation per external_id: a fresh one expires the old (SPEC §3).
create unique index invitations_one_pending on invitations (platform_id, external_id) where state = 'pending';

create table orders (
  id text primary key,
  platform_id text not null references platforms(id),
  merchant_id text not null references merchants(id),
  merchant_external_id text not null,
  order_no text not null,
  -- order_no is unique per platform among live orders; an expired order releases it for reuse and
  -- never takes it back, even if the chain later confirms it (chain wins, DESIGN §4).
  order_no_released boolean not null default false,
  chain_id integer not null,
  token text not null,
  token_address text not null,
  amount bigint not null check (amount > 0),
  service_fee_bps integer not null,
  platform_fee_bps integer not null,
  reserve_bps integer not null,
  service_fee bigint not null,
  platform_fee bigint not null,
  merchant_gross bigint not null,
  reserve_hold bigint not null,
  merchant_available bigint not null,
  metadata jsonb not null default '{}',
  state text not null check (state in ('pending_payment', 'confirmed', 'partially_refunded', 'refunded', 'failed', 'expired')),
  pay_to text not null,
  onchain_id text not null unique,
  payer_address text,
  merchant_wallet text not null,
  platform_wallet text not null,
  eip712 jsonb not null,
  signature text not null,
  deadline_at timestamptz not null,
  checkout_session_id text,
  paid_by text,
  tx_hash text,
  block_number bigint,
  paid_at timestamptz,                    -- block time of the OrderPaid log (chain clock, for the reserve hold)
  refunded_amount bigint not null default 0,
  reserve_remaining bigint not null default 0,
  settlement_id text,
  failure_reason text,
  confirmed_at timestamptz,
  failed_at timestamptz,
  expired_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check (service_fee + platform_fee + merchant_gross = amount),
  check (reserve_hold + merchant_available = merchant_gross),
  check (refunded_amount between 0 and amount)
);
create unique index orders_order_no_live on orders (platform_id, order_no) where not order_no_released;
create index orders_platform_idx on orders (platform_id, created_at desc, id desc);
create index orders_platform_state_idx on orders (platform_id, state, created_at desc, id desc);
create index orders_pending_deadline_idx on orders (deadline_at) where state = 'pending_payment';
create index orders_confirmed_idx on orders (platform_id, confirmed_at) where confirmed_at is not null;

create table checkout_sessions (
  id text primary key,
  platform_id text not null references platforms(id),
  order_id text not null unique references orders(id),
  token_hash text not null unique,
  state text not null check (state in ('open', 'completed', 'expired')),
  success_url text,
  cancel_url text,
  payer_address text,
  expires_at timestamptz not null,
  completed_at timestamptz,
  created_at timestamptz not null default now()
);
create index checkout_sessions_open_idx on checkout_sessions (expires_at) where state = 'open';
create index checkout_sessions_platform_idx on checkout_sessions (platform_id, created_at desc, id desc);
