-- An order's timeline (GET /v1/orders/{id}/timeline, timelines/repo.ts chainLogs) reads the router logs of its
-- on-chain ids: without an index on onchain_id that was a scan of every chain log, one per paid order and refund
-- and settlement (issue 37's scale bench: 190 ms at 200k orders, growing with the table; docs/performance.md,
-- "Scale"). Both of the query's forms (lower case and as given) are equalities on this index.
create index chain_logs_onchain_idx on chain_logs (onchain_id);
