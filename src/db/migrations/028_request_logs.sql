-- Every authenticated API request of a platform (GET /v1/developers/request_logs), written in batches off the
-- request path (src/modules/request-logs/buffer.ts); the last 10,000 per platform are kept (pruned after writes).
-- Bodies only for failures (status >= 400), secrets redacted before they are stored.
create table request_logs (
  id bigserial primary key,
  platform_id text not null,
  request_id text not null check (length(request_id) <= 128),
  method text not null check (length(method) <= 16),
  path text not null check (length(path) <= 2048),
  status integer not null,
  idempotency_key text check (length(idempotency_key) <= 255),
  principal_type text not null check (principal_type in ('secret_key', 'publishable_key', 'session')),
  key_id text,
  user_id text,
  duration_ms integer not null,
  error_code text,
  request_body text,
  response_body text,
  created_at timestamptz(3) not null
);
create index request_logs_platform_idx on request_logs (platform_id, id desc);
create index request_logs_request_id_idx on request_logs (platform_id, request_id);
