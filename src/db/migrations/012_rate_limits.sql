-- Per-platform request rate for its secret keys (token bucket, api/middleware/rate-limit.ts). Null: the
-- configured default (RATE_LIMIT_PER_SECOND / RATE_LIMIT_BURST).
alter table platforms add column rate_limit_per_second integer check (rate_limit_per_second is null or rate_limit_per_second > 0);
alter table platforms add column rate_limit_burst integer check (rate_limit_burst is null or rate_limit_burst > 0);
