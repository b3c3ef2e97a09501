-- Indexer (issue 15): the cursor block's hash and time, semantic event keys, USDC sent straight to the
-- router, and per-chain indexer state shared by every instance (enabled flag, lease, status).

-- The hash of the cursor block commits to every block below it: re-checked each tick (reorg below depth).
alter table chain_cursors add column last_block_hash text, add column last_block_time timestamptz;

-- A log re-included at another block or index keeps its meaning: (chain, event_key) applies it once.
alter table chain_logs add column event_key text;
update chain_logs set event_key = event_name || ':' || lower(onchain_id)
  where event_name in ('OrderPaid', 'BatchSettled') and onchain_id is not null;
update chain_logs l set event_key = 'Refunded:' || lower(r.onchain_id)
  from refunds r join orders o on o.id = r.order_id
  where l.event_name = 'Refunded' and l.event_key is null and r.tx_hash = l.tx_hash and lower(o.onchain_id) = lower(l.onchain_id);
update chain_logs l set event_key = l.event_name || ':' || lower(s.onchain_id) || ':' || lower(l.onchain_id)
  from settlements s
  where l.event_name in ('ReserveReleased', 'ReserveReleaseFailed') and l.event_key is null and s.tx_hash = l.tx_hash;
-- What the old rows do not tell (a refund or batch the service never knew): keyed by position, as before.
update chain_logs set event_key = event_name || ':legacy:' || tx_hash || ':' || log_index where event_key is null;
alter table chain_logs alter column event_key set not null;
alter table chain_logs drop constraint chain_logs_pkey;
alter table chain_logs add primary key (chain_id, event_key);
create index chain_logs_position_idx on chain_logs (chain_id, tx_hash, log_index);

-- USDC transferred to the router by anything but the router's own pull (payOrder, refund): nobody's order.
create table unmatched_transfers (
  id text primary key,
  chain_id integer not null,
  token text not null,
  from_address text not null,
  value bigint not null,
  tx_hash text not null,
  block_number bigint not null,
  block_time timestamptz not null,
  log_index integer not null,
  event_key text not null,
  recovered_tx_hash text,
  recovered_at timestamptz,
  created_at timestamptz not null default now(),
  unique (chain_id, event_key)
);
create index unmatched_transfers_list_idx on unmatched_transfers (created_at desc, id desc);

-- One row per chain: what /_/indexer/start|stop set, the lease of the instance that indexes, its status.
create table indexer_chains (
  chain_id integer primary key,
  enabled boolean not null default true,
  lease_holder text,
  lease_until timestamptz,
  heartbeat_at timestamptz,
  head bigint,
  target bigint,
  finality text,
  finality_source text,
  last_error text,
  last_error_at timestamptz,
  consecutive_errors integer not null default 0,
  logs_applied bigint not null default 0,
  last_run_at timestamptz
);
