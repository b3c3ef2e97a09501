-- Storage bounds (issue 32): webhook attempt retention, the timeline's lookup of an object's events, and a
-- follower's cursor over GET /v1/events.

-- A delivery's last attempt time is kept on the delivery itself (written with the outcome, as attempts,
-- last_status and last_error are), so the summary stays true once the retention pass
-- (modules/webhooks/prune-attempts.ts) has removed the attempt rows. Filled from the attempts there are.
alter table webhook_deliveries add column last_attempt_at timestamptz;
update webhook_deliveries d set last_attempt_at = a.at
  from (select delivery_id, max(attempted_at) as at from webhook_attempts group by delivery_id) a
  where d.id = a.delivery_id;
-- The retention pass walks attempts oldest first and stops at the cutoff.
create index webhook_attempts_attempted_idx on webhook_attempts (attempted_at, id);

-- The timeline (modules/timelines/repo.ts eventsAbout) finds an object's events by data.object.id, or by
-- data.object.order_id for a refund's or a session's; each is one index probe instead of a scan of the
-- platform's events.
create index events_object_id_idx on events (platform_id, (data->'object'->>'id'));
create index events_object_order_id_idx on events (platform_id, (data->'object'->>'order_id'))
  where data->'object'->>'order_id' is not null;
-- Each of those events' deliveries (and GET /v1/events?delivery_status=…): the only index on event_id was the
-- unique (endpoint_id, event_id), whose leading column these lookups do not have.
create index webhook_deliveries_event_idx on webhook_deliveries (event_id);

-- The transaction that wrote the event (GET /v1/events?after=…). created_at is stamped inside the transaction,
-- so an event can become visible after a later-stamped one; the follower's order is (tx, created_at, id) and
-- it only lists events of transactions older than every one still running, a set that never grows again.
-- Events written before this migration read 0: all committed, they come first, by (created_at, id).
alter table events add column tx xid8 not null default '0';
alter table events alter column tx set default pg_current_xact_id();
create index events_platform_tx_idx on events (platform_id, tx, created_at, id);
