-- Outbox: events are written in the same transaction as the state change they describe,
-- together with one delivery row per subscribed endpoint (unique per endpoint and event).
create table webhook_endpoints (
  id text primary key,
  platform_id text not null references platforms(id),
  url text not null,
  subscribed_events jsonb not null,
  secret text not null,
  previous_secret text,
  previous_secret_expires_at timestamptz,
  disabled_at timestamptz,
  disabled_reason text,
  deleted_at timestamptz,
  created_at timestamptz not null default now()
);
create index webhook_endpoints_platform_idx on webhook_endpoints (platform_id, created_at desc, id desc);

create table events (
  id text primary key,
  platform_id text not null references platforms(id),
  type text not null,
  data jsonb not null,
  created_at timestamptz not null default now()
);
create index events_platform_idx on events (platform_id, created_at desc, id desc);

create table webhook_deliveries (
  id text primary key,
  event_id text not null references events(id),
  endpoint_id text not null references webhook_endpoints(id),
  platform_id text not null references platforms(id),
  state text not null check (state in ('pending', 'succeeded', 'failed')),
  attempts integer not null default 0,
  next_attempt_at timestamptz not null default now(),
  locked_until timestamptz,
  last_status integer,
  last_error text,
  delivered_at timestamptz,
  created_at timestamptz not null default now(),
  unique (endpoint_id, event_id)
);
create index webhook_deliveries_due_idx on webhook_deliveries (next_attempt_at) where state = 'pending';
create index webhook_deliveries_endpoint_idx on webhook_deliveries (endpoint_id, created_at desc);

create table webhook_attempts (
  id bigserial primary key,
  delivery_id text not null references webhook_deliveries(id),
  attempted_at timestamptz not null default now(),
  status integer,
  error text,
  duration_ms integer not null
);
create index webhook_attempts_delivery_idx on webhook_attempts (delivery_id, attempted_at);
