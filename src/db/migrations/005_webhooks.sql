-- Webhooks: an optional description per endpoint; a lease token so only the instance holding a delivery's
-- lease can record its outcome; retry_from so a manual redelivery starts a fresh retry schedule.
alter table webhook_endpoints add column description text;
alter table webhook_deliveries add column lease_token text;
alter table webhook_deliveries add column retry_from integer not null default 0;
-- The deliverer claims per endpoint (fairness, per-endpoint in-flight cap) and filters events by type.
create index webhook_deliveries_endpoint_due_idx on webhook_deliveries (endpoint_id, next_attempt_at) where state = 'pending';
create index webhook_deliveries_leased_idx on webhook_deliveries (endpoint_id) where locked_until is not null;
create index events_platform_type_idx on events (platform_id, type, created_at desc, id desc);
