-- GET /v1/orders/summary without reading the platform's history (issue 37: flat at a year's size). The summary counted
-- every order of the platform (`total`, `pending`, `confirmed`: a scan of 10M rows, seconds) and summed 14 days of
-- confirmed orders (`gross_daily`: 380,000 rows at 10M a year) on every dashboard load. Now a row trigger on orders
-- appends each order's change to `order_count_deltas` in the transaction that changes the order: +1 total on insert,
-- ±1 pending and ±1 confirmed when its state or confirmed_at moves, and ± its paid-out amount in the minute of its
-- confirmed_at. The worker folds those rows into `order_counts`, `order_gross_days` and `order_gross_minutes`
-- (modules/orders/fold-counts.ts), in one statement. A read adds the folded rows and the deltas not folded yet in one
-- statement: one snapshot, so a fold committing meanwhile is seen whole or not at all. Deltas are appended, never
-- updated: concurrent order writers never wait on one counter row (no hot row, no lock order between two multi-order
-- transactions). Minutes are kept 3 days (gross_24h reads them; an older window reads orders), days for good.
-- All three tables and the deltas are facts derived from orders: rebuilt by the backfill below if ever in doubt.
create table order_counts (
  platform_id text primary key references platforms(id),
  total bigint not null default 0,
  pending bigint not null default 0,
  confirmed bigint not null default 0
);
create table order_gross_days (
  platform_id text not null references platforms(id),
  day date not null,                            -- UTC day of confirmed_at
  gross bigint not null default 0,              -- paid out (the captured amount), base units
  paid integer not null default 0,
  primary key (platform_id, day)
);
create table order_gross_minutes (
  platform_id text not null references platforms(id),
  minute timestamptz not null,                  -- the minute of confirmed_at
  gross bigint not null default 0,
  paid integer not null default 0,
  primary key (platform_id, minute)
);
create index order_gross_minutes_minute_idx on order_gross_minutes (minute);
create table order_count_deltas (
  id bigint generated always as identity primary key,
  platform_id text not null,
  total integer not null default 0,
  pending integer not null default 0,
  confirmed integer not null default 0,
  minute timestamptz,                           -- the minute of confirmed_at whose gross this row moves; null: none
  gross bigint not null default 0,
  paid integer not null default 0
) with (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 10000);
-- A queue: rows live seconds. Vacuumed after every 10,000 dead rows (not 20 % of a table that is nearly empty), so
-- a read's index probe does not walk the folded rows' dead entries.
create index order_count_deltas_platform_idx on order_count_deltas (platform_id);

-- The triggers take a lock on orders that no insert or update can pass until this migration commits: the backfill
-- counts exactly the rows the triggers will not see.
create function orders_count_delta() returns trigger language plpgsql as $$
declare
  d_total integer := case tg_op when 'INSERT' then 1 when 'DELETE' then -1 else 0 end;
  d_pending integer := 0;
  d_confirmed integer := 0;
  p text;
  old_minute timestamptz;
  old_gross bigint;
  new_minute timestamptz;
  new_gross bigint;
begin
  if tg_op <> 'DELETE' then
    p := new.platform_id;
    d_pending := (new.state = 'pending_payment')::integer;
    d_confirmed := (new.confirmed_at is not null)::integer;
    if new.confirmed_at is not null then
      new_minute := date_trunc('minute', new.confirmed_at);
      new_gross := case when new.capture_method = 'manual' then new.amount_captured else new.amount end;
    end if;
  end if;
  if tg_op <> 'INSERT' then
    p := old.platform_id;
    d_pending := d_pending - (old.state = 'pending_payment')::integer;
    d_confirmed := d_confirmed - (old.confirmed_at is not null)::integer;
    if old.confirmed_at is not null then
      old_minute := date_trunc('minute', old.confirmed_at);
      old_gross := case when old.capture_method = 'manual' then old.amount_captured else old.amount end;
    end if;
  end if;
  if old_minute is not distinct from new_minute and old_gross is not distinct from new_gross then
    old_minute := null;
    new_minute := null;
  elsif old_minute is not null and new_minute is not null then
    -- Moved (a reorg's new block, an amount changed): the old minute's share leaves in a row of its own.
    insert into order_count_deltas (platform_id, minute, gross, paid) values (p, old_minute, -old_gross, -1);
    old_minute := null;
  end if;
  -- At most one of old_minute and new_minute is left: one row per change (a confirmation is one row).
  if d_total <> 0 or d_pending <> 0 or d_confirmed <> 0 or old_minute is not null or new_minute is not null then
    insert into order_count_deltas (platform_id, total, pending, confirmed, minute, gross, paid)
      values (p, d_total, d_pending, d_confirmed, coalesce(new_minute, old_minute),
        case when new_minute is not null then new_gross when old_minute is not null then -old_gross else 0 end,
        case when new_minute is not null then 1 when old_minute is not null then -1 else 0 end);
  end if;
  return null;
end $$;

create trigger orders_count_insert after insert on orders for each row execute function orders_count_delta();
create trigger orders_count_update after update of state, confirmed_at, amount, amount_captured, capture_method on orders
  for each row when (old.state is distinct from new.state or old.confirmed_at is distinct from new.confirmed_at
    or (new.confirmed_at is not null and (old.amount, old.amount_captured, old.capture_method) is distinct from (new.amount, new.amount_captured, new.capture_method)))
  execute function orders_count_delta();
create trigger orders_count_delete after delete on orders for each row execute function orders_count_delta();

insert into order_counts (platform_id, total, pending, confirmed)
  select platform_id, count(*), count(*) filter (where state = 'pending_payment'), count(*) filter (where confirmed_at is not null)
  from orders group by platform_id;
insert into order_gross_days (platform_id, day, gross, paid)
  select platform_id, (confirmed_at at time zone 'UTC')::date, sum(case when capture_method = 'manual' then amount_captured else amount end), count(*)
  from orders where confirmed_at is not null group by 1, 2;
insert into order_gross_minutes (platform_id, minute, gross, paid)
  select platform_id, date_trunc('minute', confirmed_at), sum(case when capture_method = 'manual' then amount_captured else amount end), count(*)
  from orders where confirmed_at >= now() - interval '3 days' group by 1, 2;
