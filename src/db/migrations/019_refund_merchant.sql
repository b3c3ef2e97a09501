-- The merchant of a refund (its order's merchant_external_id), so the ledger filtered by merchant reads the
-- merchant's refunds from an index instead of walking every refund of the platform to find them (docs/balances.md,
-- docs/performance.md: 60–80 ms at 10k refunds before). An order's merchant never changes, so the copy cannot go
-- stale. A BEFORE INSERT trigger fills it from the order: every writer of refunds (the refunds module, fixtures,
-- the bench) gets it without knowing about it, and NOT NULL holds the invariant.
alter table refunds add column merchant_external_id text;
update refunds r set merchant_external_id = o.merchant_external_id from orders o where o.id = r.order_id;
alter table refunds alter column merchant_external_id set not null;

create function refunds_set_merchant() returns trigger language plpgsql as $$
begin
  select o.merchant_external_id into new.merchant_external_id from orders o where o.id = new.order_id;
  return new;
end $$;

create trigger refunds_set_merchant before insert on refunds
  for each row execute function refunds_set_merchant();

-- Refund legs of one merchant (block time = completed_at), in the order the ledger pages them.
create index refunds_merchant_completed_idx on refunds (platform_id, merchant_external_id, completed_at desc, id desc)
  where state = 'completed';
