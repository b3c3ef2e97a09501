-- When an endpoint's current run of failed attempts began (null while its last attempt succeeded). The deliverer
-- disables an endpoint that has been failing without a success for WEBHOOK_DISABLE_AFTER_DAYS (default 5).
alter table webhook_endpoints add column failing_since timestamptz;
