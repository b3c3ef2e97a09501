-- Who created, rolled or revoked each API key, when and from which client address (GET /v1/developers/audit_log).
-- Written in the transaction that changes the key. The actor is a dashboard user (id and e-mail as they were
-- at the time) or a secret key (which may revoke only itself). Rows are never updated or deleted.
create table key_audit_log (
  id text primary key,
  platform_id text not null references platforms(id),
  action text not null check (action in ('key.created', 'key.rolled', 'key.revoked')),
  key_id text not null references api_keys(id),
  key_kind text not null check (key_kind in ('secret', 'publishable')),
  key_hint text not null,
  actor_type text not null check (actor_type in ('session', 'secret_key')),
  actor_user_id text,
  actor_email text,
  actor_key_id text,
  client_address text check (length(client_address) <= 64),
  created_at timestamptz not null default now(),
  check (case actor_type
    when 'session' then actor_user_id is not null and actor_email is not null and actor_key_id is null
    else actor_key_id is not null and actor_user_id is null and actor_email is null end)
);
create index key_audit_log_platform_idx on key_audit_log (platform_id, created_at desc, id desc);

-- The key list reads active keys first, then revoked ones, newest first within each (keyset pages), and key
-- creation counts a platform's active keys (at most 20): one index serves both.
create index api_keys_platform_state_idx on api_keys (platform_id, (revoked_at is not null), created_at desc, id desc);
-- Page cursors carry milliseconds (a JS Date); keys are now stamped by the service's clock, these were stamped by now().
update api_keys set created_at = date_trunc('milliseconds', created_at) where created_at <> date_trunc('milliseconds', created_at);
