-- The held reserve per merchant (038) moved once per statement instead of once per order row. The indexer confirms
-- up to 2,000 orders in one statement; with a row trigger each order upserted its merchant's balance_reserves row,
-- so a busy merchant's row was updated up to 2,000 times in one transaction, each update walking the versions the
-- transaction had already made (quadratic: the same row upserted 8,000 times took 641 ms, 8,000 rows 58 ms; 96 µs
-- per paid order in the indexer's apply). Now each statement on orders adds one delta per (platform, merchant, chain)
-- it moved, from its transition tables. Same sums, same earliest hold end: the hold end is looked up again in
-- orders (one index probe, after the statement, so it sees the statement's rows) only when a row leaving held it.
-- PostgreSQL allows no column list on a trigger with transition tables, so the update trigger fires for every
-- update statement on orders and keeps only the rows whose reserve or hold end changed.
drop trigger orders_reserve_held_update on orders;
drop trigger orders_reserve_held_insert on orders;
drop trigger orders_reserve_held_delete on orders;

-- Applies the rows leaving (old, reserve held) and entering (new, reserve held) the sums, grouped per merchant.
create function balance_reserves_move(moved jsonb) returns void language sql as $$
  with m as (
    select platform_id, merchant_id, chain_id, held, enters, leaves
    from jsonb_to_recordset(moved) as x(platform_id text, merchant_id text, chain_id integer, held bigint, enters timestamptz, leaves timestamptz)
  ),
  g as (
    select platform_id, merchant_id, chain_id, sum(held)::bigint as held, min(enters) as enters, min(leaves) as leaves
    from m group by platform_id, merchant_id, chain_id
  ),
  upd as (
    update balance_reserves r set held = r.held + g.held,
      first_release_at = case when g.leaves <= r.first_release_at then (select min(o.reserve_release_at) from orders o
          where o.platform_id = r.platform_id and o.merchant_external_id = r.merchant_id and o.chain_id = r.chain_id
            and o.reserve_remaining > 0)
        else least(r.first_release_at, g.enters) end
    from g where r.platform_id = g.platform_id and r.merchant_id = g.merchant_id and r.chain_id = g.chain_id
    returning r.platform_id, r.merchant_id, r.chain_id
  )
  insert into balance_reserves (platform_id, merchant_id, chain_id, held, first_release_at)
    select g.platform_id, g.merchant_id, g.chain_id, g.held, g.enters from g
    where g.enters is not null
      and not exists (select 1 from upd where upd.platform_id = g.platform_id and upd.merchant_id = g.merchant_id and upd.chain_id = g.chain_id)
$$;

create function orders_reserve_held_on_update() returns trigger language plpgsql as $$
begin
  perform balance_reserves_move(coalesce((select jsonb_agg(x) from (
    select o.platform_id, o.merchant_external_id as merchant_id, o.chain_id, -o.reserve_remaining as held, null::timestamptz as enters, o.reserve_release_at as leaves
      from old_rows o join new_rows n on n.id = o.id
      where o.reserve_remaining <> 0
        and (o.reserve_remaining <> n.reserve_remaining or o.reserve_release_at is distinct from n.reserve_release_at)
    union all
    select n.platform_id, n.merchant_external_id, n.chain_id, n.reserve_remaining, n.reserve_release_at, null
      from new_rows n join old_rows o on o.id = n.id
      where n.reserve_remaining <> 0
        and (o.reserve_remaining <> n.reserve_remaining or o.reserve_release_at is distinct from n.reserve_release_at)
  ) x), '[]'));
  return null;
end $$;

-- An insert's rows enter, a delete's leave (each statement is planned when run, so a branch names only its own table).
create function orders_reserve_held_on_insert_or_delete() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' then
    perform balance_reserves_move(coalesce((select jsonb_agg(x) from (
      select n.platform_id, n.merchant_external_id as merchant_id, n.chain_id, n.reserve_remaining as held, n.reserve_release_at as enters, null::timestamptz as leaves
        from new_rows n where n.reserve_remaining <> 0) x), '[]'));
  else
    perform balance_reserves_move(coalesce((select jsonb_agg(x) from (
      select o.platform_id, o.merchant_external_id as merchant_id, o.chain_id, -o.reserve_remaining as held, null::timestamptz as enters, o.reserve_release_at as leaves
        from old_rows o where o.reserve_remaining <> 0) x), '[]'));
  end if;
  return null;
end $$;

create trigger orders_reserve_held_update after update on orders referencing old table as old_rows new table as new_rows
  for each statement execute function orders_reserve_held_on_update();
create trigger orders_reserve_held_insert after insert on orders referencing new table as new_rows
  for each statement execute function orders_reserve_held_on_insert_or_delete();
create trigger orders_reserve_held_delete after delete on orders referencing old table as old_rows
  for each statement execute function orders_reserve_held_on_insert_or_delete();
