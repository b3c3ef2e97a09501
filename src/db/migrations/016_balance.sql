-- Balances, ledger, net volume and exports (issue 18; docs/balances.md). Reads the tables the indexer writes in
-- the same transaction as each state change; these indexes make each ledger branch an index range scan in
-- block-time order.

-- Payment legs (block time = paid_at), and the paid orders of a time window (balance closings, net volume).
create index orders_paid_idx on orders (platform_id, paid_at desc, id desc) where paid_at is not null;
-- The same for one merchant (its ledger on the merchant page).
create index orders_merchant_paid_idx on orders (platform_id, merchant_external_id, paid_at desc, id desc) where paid_at is not null;
-- Reserve still held: small (orders inside their hold, and refused releases), read with when it becomes releasable.
create index orders_reserve_held_idx on orders (platform_id, merchant_external_id)
  include (reserve_remaining, reserve_release_at, chain_id) where reserve_remaining > 0;
-- Refund legs (block time = completed_at); the submitter leg only exists when the reserve did not cover it.
create index refunds_completed_idx on refunds (platform_id, completed_at desc, id desc) where state = 'completed';
create index refunds_funded_idx on refunds (platform_id, completed_at desc, id desc) where state = 'completed' and funding_required > 0;
-- Release legs: batches in block-time order, then their items; refused releases are rare, found directly.
create index settlements_confirmed_idx on settlements (confirmed_at desc, id desc) where confirmed_at is not null;
create index settlement_items_failed_idx on settlement_items (platform_id, settlement_id) where state = 'release_failed';

-- Balance closings: sums of what can no longer change, per platform, up to `closed_until` (a UTC day start the
-- indexed chain time of every chain has passed: payments and refunds are applied in block order, so none with an
-- earlier block time can arrive later). A read adds the live part (block time >= closed_until) to these, so it
-- never sums the whole history. Written only by the balance module; a cache of facts that never change, rebuilt
-- from the domain tables if deleted.
create table balance_closings (
  platform_id text primary key references platforms(id),
  closed_until timestamptz not null,
  updated_at timestamptz not null default now()
);
create table balance_closed_merchants (
  platform_id text not null references platforms(id),
  merchant_id text not null,                    -- the merchant's external_id, as on orders
  gross bigint not null default 0,
  platform_fees bigint not null default 0,
  reserve_hold bigint not null default 0,
  refunded_from_reserve bigint not null default 0,
  refunded_from_submitter bigint not null default 0,
  primary key (platform_id, merchant_id)
);
create table balance_closed_days (
  platform_id text not null references platforms(id),
  day date not null,                            -- UTC
  gross bigint not null default 0,
  refunded bigint not null default 0,
  payments bigint not null default 0,
  refunds bigint not null default 0,
  primary key (platform_id, day)
);
