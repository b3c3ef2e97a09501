-- Webhook tools, checkout fee display (issue 29).
-- A paused endpoint keeps its deliveries pending: the deliverer claims nothing of it until it is resumed.
-- Status is derived: disabled (disabled_at) wins over paused (paused_at), else enabled.
alter table webhook_endpoints add column paused_at timestamptz;
-- Each attempt as sent and as answered (the delivery inspector): the URL and headers sent (the body is the
-- event's, the same bytes every attempt), the answer's headers and the first 4,096 bytes of its body.
alter table webhook_attempts add column request_url text;
alter table webhook_attempts add column request_headers jsonb;
alter table webhook_attempts add column response_headers jsonb;
alter table webhook_attempts add column response_body text;
-- The hosted page shows the fee breakdown (itemized, the spec's default) or the price only.
alter table checkout_sessions add column fee_display text not null default 'itemized' check (fee_display in ('itemized', 'total_only'));
