-- Reserve still held per merchant (issue 37: GET /v1/balance flat at a year's size). The balance summed
-- `orders.reserve_remaining` over every order inside its hold: a week of the platform's payments, 190,000 rows at
-- 10M orders a year, read on every balance call. This table keeps that sum per (platform, merchant, chain) and the
-- earliest hold end among them, moved
-- by a row trigger on orders in the transaction that moves an order's reserve (OrderPaid, Refunded, ReserveReleased,
-- a reorg's rewind: every writer, fixtures and the bench included, without knowing about it). Its rows are facts
-- derived from orders: rebuilt by the statement below if ever in doubt.
create table balance_reserves (
  platform_id text not null references platforms(id),
  merchant_id text not null,                    -- the merchant's external_id, as on orders
  chain_id integer not null,
  held bigint not null default 0,
  first_release_at timestamptz,                 -- the earliest hold end of the merchant's held orders
  primary key (platform_id, merchant_id, chain_id)
);
insert into balance_reserves (platform_id, merchant_id, chain_id, held, first_release_at)
  select platform_id, merchant_external_id, chain_id, sum(reserve_remaining), min(reserve_release_at) from orders
  where reserve_remaining > 0 group by platform_id, merchant_external_id, chain_id;

-- An order's platform, merchant and chain never change; its reserve and (a reorg re-applying its payment in another
-- block) its hold end may. The old row leaves the sums, the new one enters: the earliest hold end is looked up again
-- (one index probe) only when the order leaving held it. The indexer is the one writer of reserves (one transaction
-- at a time per chain), so two transactions never race on a merchant's row here.
create function orders_reserve_held() returns trigger language plpgsql as $$
begin
  if tg_op <> 'INSERT' and old.reserve_remaining <> 0 then
    update balance_reserves r set held = r.held - old.reserve_remaining,
      first_release_at = case when old.reserve_release_at <= r.first_release_at then (select min(o.reserve_release_at) from orders o
        where o.platform_id = old.platform_id and o.merchant_external_id = old.merchant_external_id and o.chain_id = old.chain_id
          and o.reserve_remaining > 0) else r.first_release_at end
    where r.platform_id = old.platform_id and r.merchant_id = old.merchant_external_id and r.chain_id = old.chain_id;
  end if;
  if tg_op <> 'DELETE' and new.reserve_remaining <> 0 then
    insert into balance_reserves (platform_id, merchant_id, chain_id, held, first_release_at)
      values (new.platform_id, new.merchant_external_id, new.chain_id, new.reserve_remaining, new.reserve_release_at)
      on conflict (platform_id, merchant_id, chain_id) do update set held = balance_reserves.held + excluded.held,
        first_release_at = least(balance_reserves.first_release_at, excluded.first_release_at);
  end if;
  return null;
end $$;

create trigger orders_reserve_held_update after update of reserve_remaining, reserve_release_at on orders
  for each row when (old.reserve_remaining <> new.reserve_remaining or old.reserve_release_at is distinct from new.reserve_release_at)
  execute function orders_reserve_held();
create trigger orders_reserve_held_insert after insert on orders
  for each row when (new.reserve_remaining <> 0) execute function orders_reserve_held();
create trigger orders_reserve_held_delete after delete on orders
  for each row when (old.reserve_remaining <> 0) execute function orders_reserve_held();

-- For a merchant whose earliest hold end the chain time has passed (orders the settlement worker has not released
-- yet): what is releasable, an index range from the start of its held orders, and the next hold end after the chain
-- time, one probe. Every other merchant reads first_release_at and needs neither.
drop index orders_reserve_held_idx;
create index orders_reserve_held_idx on orders (platform_id, merchant_external_id, chain_id, reserve_release_at)
  include (reserve_remaining) where reserve_remaining > 0;
