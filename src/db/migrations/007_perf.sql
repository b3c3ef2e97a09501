-- Performance (docs/performance.md, EXPLAIN with 100k orders): GET /v1/orders?merchant_id=… was a
-- sequential scan of every order of every platform; this index serves the filter and the newest-first
-- keyset order, cursor included.
create index orders_platform_merchant_idx on orders (platform_id, merchant_external_id, created_at desc, id desc);
