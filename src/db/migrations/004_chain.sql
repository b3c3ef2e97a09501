-- Indexer state: a cursor per chain, and every applied log once (chain, tx hash, log index).
create table chain_cursors (
  chain_id integer primary key,
  last_block bigint not null,
  updated_at timestamptz not null default now()
);
create table chain_logs (
  chain_id integer not null,
  tx_hash text not null,
  log_index integer not null,
  block_number bigint not null,
  block_hash text not null,
  event_name text not null,
  onchain_id text,
  applied_at timestamptz not null default now(),
  primary key (chain_id, tx_hash, log_index)
);
create index chain_logs_block_idx on chain_logs (chain_id, block_number);
create table chain_alerts (
  id bigserial primary key,
  chain_id integer not null,
  kind text not null,
  detail jsonb not null,
  created_at timestamptz not null default now()
);

create table refunds (
  id text primary key,
  platform_id text not null references platforms(id),
  order_id text not null references orders(id),
  amount bigint not null check (amount > 0),
  state text not null check (state in ('pending', 'requires_funding', 'completed', 'failed')),
  reason text,
  metadata jsonb not null default '{}',
  reserve_portion bigint not null,
  funding_required bigint not null,
  onchain_id text not null unique,
  to_address text not null,
  pay_to text not null,
  eip712 jsonb not null,
  signature text not null,
  deadline_at timestamptz not null,
  tx_hash text,
  failure_reason text,
  created_at timestamptz not null default now(),
  completed_at timestamptz
);
create index refunds_platform_idx on refunds (platform_id, created_at desc, id desc);
create index refunds_order_idx on refunds (order_id);
create index refunds_pending_idx on refunds (state) where state in ('pending', 'requires_funding');

create table settlements (
  id text primary key,
  chain_id integer not null,
  onchain_id text not null unique,
  state text not null check (state in ('submitted', 'confirmed', 'failed')),
  order_count integer not null,
  total bigint not null default 0,
  tx_hash text,
  error text,
  created_at timestamptz not null default now(),
  confirmed_at timestamptz
);
create index orders_settle_due_idx on orders (chain_id, confirmed_at) where settlement_id is null and reserve_remaining > 0;
