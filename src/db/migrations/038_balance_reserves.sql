-- Reserve still held per merchant (issue 37: GET /v1/balance flat at a year's size). The balance summed
-- `orders.reserve_remaining` over every order inside its hold: a week of the platform's payments, 190,000 rows at
-- 10M orders a year, read on every balance call. This table keeps that sum per (platform, merchant, chain), moved
-- by a row trigger on orders in the transaction that moves an order's reserve (OrderPaid, Refunded, ReserveReleased,
-- a reorg's rewind: every writer, fixtures and the bench included, without knowing about it). Its rows are facts
-- derived from orders: rebuilt by the statement below if ever in doubt.
create table balance_reserves (
  platform_id text not null references platforms(id),
  merchant_id text not null,                    -- the merchant's external_id, as on orders
  chain_id integer not null,
  held bigint not null default 0,
  primary key (platform_id, merchant_id, chain_id)
);
insert into balance_reserves (platform_id, merchant_id, chain_id, held)
  select platform_id, merchant_external_id, chain_id, sum(reserve_remaining) from orders
  where reserve_remaining > 0 group by platform_id, merchant_external_id, chain_id;

-- An order's platform, merchant and chain never change: only its reserve moves.
create function orders_reserve_held() returns trigger language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    insert into balance_reserves (platform_id, merchant_id, chain_id, held) values (old.platform_id, old.merchant_external_id, old.chain_id, -old.reserve_remaining)
      on conflict (platform_id, merchant_id, chain_id) do update set held = balance_reserves.held + excluded.held;
  else
    insert into balance_reserves (platform_id, merchant_id, chain_id, held)
      values (new.platform_id, new.merchant_external_id, new.chain_id, new.reserve_remaining - case when tg_op = 'INSERT' then 0 else old.reserve_remaining end)
      on conflict (platform_id, merchant_id, chain_id) do update set held = balance_reserves.held + excluded.held;
  end if;
  return null;
end $$;

create trigger orders_reserve_held_update after update of reserve_remaining on orders
  for each row when (old.reserve_remaining <> new.reserve_remaining) execute function orders_reserve_held();
create trigger orders_reserve_held_insert after insert on orders
  for each row when (new.reserve_remaining <> 0) execute function orders_reserve_held();
create trigger orders_reserve_held_delete after delete on orders
  for each row when (old.reserve_remaining <> 0) execute function orders_reserve_held();

-- What is releasable (hold ended on the chain's time, not yet released) and the next hold to end, per merchant:
-- an index range from the start of the merchant's held orders, and the first entry after the chain time.
drop index orders_reserve_held_idx;
create index orders_reserve_held_idx on orders (platform_id, merchant_external_id, chain_id, reserve_release_at)
  include (reserve_remaining) where reserve_remaining > 0;
