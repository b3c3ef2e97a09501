-- Every table a keyset-paged list reads (db/pagination.ts) keeps created_at at millisecond precision. A cursor
-- carries a JS Date (milliseconds); with now()'s microseconds stored, `(created_at, id) < cursor` skipped rows
-- created in the same millisecond as a page's last row but later within it. Existing values are truncated, which
-- is what every reader (a JS Date) has always shown for them; new ones default to the database clock truncated
-- the same way (a value written explicitly is rounded by the type). Each table is rewritten once, its indexes
-- rebuilt. (balance transactions page by block times: whole seconds from the chain.)
alter table merchants alter column created_at type timestamptz(3) using date_trunc('milliseconds', created_at),
  alter column created_at set default date_trunc('milliseconds', now());
alter table orders alter column created_at type timestamptz(3) using date_trunc('milliseconds', created_at),
  alter column created_at set default date_trunc('milliseconds', now());
alter table refunds alter column created_at type timestamptz(3) using date_trunc('milliseconds', created_at),
  alter column created_at set default date_trunc('milliseconds', now());
alter table settlements alter column created_at type timestamptz(3) using date_trunc('milliseconds', created_at),
  alter column created_at set default date_trunc('milliseconds', now());
alter table events alter column created_at type timestamptz(3) using date_trunc('milliseconds', created_at),
  alter column created_at set default date_trunc('milliseconds', now());
alter table webhook_endpoints alter column created_at type timestamptz(3) using date_trunc('milliseconds', created_at),
  alter column created_at set default date_trunc('milliseconds', now());
alter table webhook_deliveries alter column created_at type timestamptz(3) using date_trunc('milliseconds', created_at),
  alter column created_at set default date_trunc('milliseconds', now());
alter table unmatched_transfers alter column created_at type timestamptz(3) using date_trunc('milliseconds', created_at),
  alter column created_at set default date_trunc('milliseconds', now());
alter table api_keys alter column created_at type timestamptz(3) using date_trunc('milliseconds', created_at),
  alter column created_at set default date_trunc('milliseconds', now());
alter table key_audit_log alter column created_at type timestamptz(3) using date_trunc('milliseconds', created_at),
  alter column created_at set default date_trunc('milliseconds', now());
