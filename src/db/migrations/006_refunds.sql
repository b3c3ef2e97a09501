-- Operator submission of reserve-covered refunds: a lease, so several instances never send the same refund
-- at once, and when it was sent, so a transaction that vanished from the mempool is sent again.
alter table refunds add column submit_lease_until timestamptz;
alter table refunds add column submitted_at timestamptz;
create index refunds_order_open_idx on refunds (order_id) where state in ('pending', 'requires_funding');

alter table settlements add column submitted_at timestamptz;
create index settlements_open_idx on settlements (chain_id, created_at) where state = 'submitted';

-- What each batch carried, per order: a platform's view of a batch (its orders, its total) and the history
-- of an order's release survive a failed batch, whose orders are unlinked (orders.settlement_id) for a retry.
create table settlement_items (
  settlement_id text not null references settlements(id),
  order_id text not null references orders(id),
  platform_id text not null references platforms(id),
  amount bigint not null check (amount > 0),   -- orders.reserve_remaining when the batch was built
  released_amount bigint,                      -- from ReserveReleased
  state text not null check (state in ('included', 'released', 'release_failed', 'skipped', 'batch_failed')),
  updated_at timestamptz not null default now(),
  primary key (settlement_id, order_id)
);
create index settlement_items_platform_idx on settlement_items (platform_id, settlement_id);
create index settlement_items_order_idx on settlement_items (order_id, state);
