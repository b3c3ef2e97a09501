-- Storage bounded by policy (issue 37): the high-volume append-only tables are partitioned by week (range on their
-- time column, weeks from Monday 00:00 UTC) so the retention worker (modules/retention) drops whole weeks instead
-- of deleting rows: events and webhook_deliveries (by their event's created_at, so a week of events and its
-- deliveries go together), webhook_attempts (attempted_at) and request_logs (created_at). Each has a DEFAULT
-- partition so no insert ever fails for lack of a week; the worker creates the current week and 4 ahead.
-- A partitioned table's primary key and unique constraints include the partition key: events (id, created_at),
-- webhook_deliveries (id, event_created_at) and (endpoint_id, event_id, event_created_at). Existing rows are
-- copied into the new tables and counted before the old ones are dropped (one transaction: all or nothing).
-- Why not chain_logs, relays, x402_payments, operator_tx_attempts: docs/decisions.md.

-- Creates the week partition of `parent` starting at `monday` (named <parent>_pYYYYMMDD) unless it exists, or
-- unless the DEFAULT partition holds rows of that week (creating it would fail; those rows stay in DEFAULT and are
-- deleted by the retention worker once past retention). Returns 'created', 'exists' or 'default_has_rows'.
create function week_partition(parent text, key text, monday date) returns text language plpgsql as $$
declare
  part text := parent || '_p' || to_char(monday, 'YYYYMMDD');
  lo timestamptz := monday::timestamp at time zone 'UTC';
  hi timestamptz := (monday + 7)::timestamp at time zone 'UTC';
  busy boolean;
begin
  if to_regclass(part) is not null then return 'exists'; end if;
  execute format('select exists (select 1 from %I where %I >= $1 and %I < $2)', parent || '_default', key, key) into busy using lo, hi;
  if busy then return 'default_has_rows'; end if;
  execute format('create table %I partition of %I for values from (%L) to (%L)', part, parent, lo, hi);
  return 'created';
end $$;

-- The Monday (UTC) of the week holding `t`.
create function week_of(t timestamptz) returns date language sql immutable as $$
  select date_trunc('week', t at time zone 'UTC')::date
$$;

alter table webhook_attempts drop constraint webhook_attempts_delivery_id_fkey;
alter table webhook_deliveries drop constraint webhook_deliveries_event_id_fkey;
alter table events rename to events_old;
alter table webhook_deliveries rename to webhook_deliveries_old;
alter table webhook_attempts rename to webhook_attempts_old;
alter table request_logs rename to request_logs_old;

create table events (
  id text not null,
  platform_id text not null,
  type text not null,
  data jsonb not null,
  created_at timestamptz(3) not null default date_trunc('milliseconds', now()),
  tx xid8 not null default pg_current_xact_id()
) partition by range (created_at);

create table webhook_deliveries (
  id text not null,
  event_id text not null,
  endpoint_id text not null,
  platform_id text not null,
  state text not null,
  attempts integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  locked_until timestamptz,
  last_status integer,
  last_error text,
  delivered_at timestamptz,
  created_at timestamptz(3) not null default date_trunc('milliseconds', now()),
  lease_token text,
  retry_from integer not null default 0,
  last_attempt_at timestamptz,
  -- Migration 034: the partition key, its event's created_at (the delivery's week is its event's week).
  event_created_at timestamptz(3) not null
) partition by range (event_created_at);

create table webhook_attempts (
  id bigint not null default nextval('webhook_attempts_id_seq'),
  delivery_id text not null,
  attempted_at timestamptz not null default now(),
  status integer,
  error text,
  duration_ms integer not null,
  request_url text,
  request_headers jsonb,
  response_headers jsonb,
  response_body text
) partition by range (attempted_at);

create table request_logs (
  id bigint not null default nextval('request_logs_id_seq'),
  platform_id text not null,
  request_id text not null,
  method text not null,
  path text not null,
  status integer not null,
  idempotency_key text,
  principal_type text not null,
  key_id text,
  user_id text,
  duration_ms integer not null,
  error_code text,
  request_body text,
  response_body text,
  created_at timestamptz(3) not null
) partition by range (created_at);

create table events_default partition of events default;
create table webhook_deliveries_default partition of webhook_deliveries default;
create table webhook_attempts_default partition of webhook_attempts default;
create table request_logs_default partition of request_logs default;

-- A week partition for each week from the oldest row of any of the four tables (at most a year back: older rows
-- stay in DEFAULT, where the retention worker deletes them) to 4 weeks ahead.
select week_partition('events', 'created_at', w.monday), week_partition('webhook_deliveries', 'event_created_at', w.monday),
       week_partition('webhook_attempts', 'attempted_at', w.monday), week_partition('request_logs', 'created_at', w.monday)
  from (select generate_series(
          greatest(week_of(now()) - 364, least(week_of(now()), (select week_of(min(created_at)) from events_old),
                (select week_of(min(attempted_at)) from webhook_attempts_old), (select week_of(min(created_at)) from request_logs_old))),
          week_of(now()) + 28, interval '7 days')::date as monday) w;

-- Every row, then the counts must match (each delivery takes its event's created_at).
insert into events (id, platform_id, type, data, created_at, tx)
  select id, platform_id, type, data, created_at, tx from events_old;
insert into webhook_deliveries (id, event_id, endpoint_id, platform_id, state, attempts, next_attempt_at, locked_until,
    last_status, last_error, delivered_at, created_at, lease_token, retry_from, last_attempt_at, event_created_at)
  select d.id, d.event_id, d.endpoint_id, d.platform_id, d.state, d.attempts, d.next_attempt_at, d.locked_until,
    d.last_status, d.last_error, d.delivered_at, d.created_at, d.lease_token, d.retry_from, d.last_attempt_at, e.created_at
  from webhook_deliveries_old d join events_old e on e.id = d.event_id;
insert into webhook_attempts (id, delivery_id, attempted_at, status, error, duration_ms, request_url, request_headers, response_headers, response_body)
  select id, delivery_id, attempted_at, status, error, duration_ms, request_url, request_headers, response_headers, response_body from webhook_attempts_old;
insert into request_logs (id, platform_id, request_id, method, path, status, idempotency_key, principal_type, key_id, user_id,
    duration_ms, error_code, request_body, response_body, created_at)
  select id, platform_id, request_id, method, path, status, idempotency_key, principal_type, key_id, user_id,
    duration_ms, error_code, request_body, response_body, created_at from request_logs_old;

do $$
declare
  t text;
  same boolean;
begin
  foreach t in array array['events', 'webhook_deliveries', 'webhook_attempts', 'request_logs'] loop
    execute format('select (select count(*) from %I) = (select count(*) from %I)', t, t || '_old') into same;
    if not same then raise exception 'migration 034: % lost rows in its conversion', t; end if;
  end loop;
end $$;

-- The ids keep their sequences.
alter sequence webhook_attempts_id_seq owned by webhook_attempts.id;
alter sequence request_logs_id_seq owned by request_logs.id;
drop table webhook_attempts_old, webhook_deliveries_old, events_old, request_logs_old;

-- Keys, checks, foreign keys and indexes, as before, each key with its table's partition key.
alter table events add constraint events_pkey primary key (id, created_at);
alter table events add constraint events_platform_id_fkey foreign key (platform_id) references platforms(id);
create index events_platform_idx on events (platform_id, created_at desc, id desc);
create index events_platform_type_idx on events (platform_id, type, created_at desc, id desc);
create index events_object_id_idx on events (platform_id, (data->'object'->>'id'));
create index events_object_order_id_idx on events (platform_id, (data->'object'->>'order_id'))
  where data->'object'->>'order_id' is not null;
create index events_platform_tx_idx on events (platform_id, tx, created_at, id);
-- A lookup by id alone (GET /v1/events/{id}) probes each week's primary key index.

alter table webhook_deliveries add constraint webhook_deliveries_pkey primary key (id, event_created_at);
alter table webhook_deliveries add constraint webhook_deliveries_endpoint_id_event_id_key unique (endpoint_id, event_id, event_created_at);
alter table webhook_deliveries add constraint webhook_deliveries_state_check check (state in ('pending', 'succeeded', 'failed'));
alter table webhook_deliveries add constraint webhook_deliveries_event_fkey foreign key (event_id, event_created_at) references events (id, created_at)
  on update cascade;
alter table webhook_deliveries add constraint webhook_deliveries_endpoint_id_fkey foreign key (endpoint_id) references webhook_endpoints(id);
alter table webhook_deliveries add constraint webhook_deliveries_platform_id_fkey foreign key (platform_id) references platforms(id);
create index webhook_deliveries_due_idx on webhook_deliveries (next_attempt_at) where state = 'pending';
create index webhook_deliveries_endpoint_due_idx on webhook_deliveries (endpoint_id, next_attempt_at) where state = 'pending';
create index webhook_deliveries_endpoint_idx on webhook_deliveries (endpoint_id, created_at desc);
create index webhook_deliveries_event_idx on webhook_deliveries (event_id);
create index webhook_deliveries_leased_idx on webhook_deliveries (endpoint_id) where locked_until is not null;

-- An attempt's delivery is no longer a foreign key (a delivery's key is (id, event_created_at)): attempts are
-- only written for a delivery the deliverer holds, and a week of attempts is dropped after its deliveries' events.
alter table webhook_attempts add constraint webhook_attempts_pkey primary key (id, attempted_at);
create index webhook_attempts_attempted_idx on webhook_attempts (attempted_at, id);
create index webhook_attempts_delivery_idx on webhook_attempts (delivery_id, attempted_at);

alter table request_logs add constraint request_logs_pkey primary key (id, created_at);
alter table request_logs add constraint request_logs_request_id_check check (length(request_id) <= 128);
alter table request_logs add constraint request_logs_method_check check (length(method) <= 16);
alter table request_logs add constraint request_logs_path_check check (length(path) <= 2048);
alter table request_logs add constraint request_logs_idempotency_key_check check (length(idempotency_key) <= 255);
alter table request_logs add constraint request_logs_principal_type_check check (principal_type in ('secret_key', 'publishable_key', 'session'));
create index request_logs_platform_idx on request_logs (platform_id, id desc);
create index request_logs_request_id_idx on request_logs (platform_id, request_id);
