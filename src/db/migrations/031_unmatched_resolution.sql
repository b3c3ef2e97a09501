-- Unmatched transfers (009): the x402 front-running path (docs/x402.md "Front-running") reads a transaction's
-- receipt only for a transfer whose sender and value match an open verified x402 payment (receipt_due), a bounded
-- number per indexer pass; the rest wait here, never dropped. A transfer an x402 payment claimed names it, and the
-- outcome of the operator's call resolves it in the transaction that applies that outcome.
alter table unmatched_transfers
  add column receipt_due boolean not null default false,
  add column x402_payment_id text references x402_payments(id),
  add column resolved_at timestamptz(3),
  add column resolution text check (resolution in ('attributed', 'returned')),
  add column resolution_tx_hash text,
  add constraint unmatched_transfers_resolved_check check ((resolution is null) = (resolved_at is null));

-- The pass's queue, oldest first; tiny (only candidates wait in it).
create index unmatched_transfers_receipt_due_idx on unmatched_transfers (chain_id, block_number, log_index) where receipt_due;
-- One transfer per x402 payment (the outcome resolves it by payment).
create unique index unmatched_transfers_x402_idx on unmatched_transfers (x402_payment_id) where x402_payment_id is not null;
-- GET /_/unmatched-transfers lists the unresolved ones.
create index unmatched_transfers_open_idx on unmatched_transfers (created_at desc, id desc) where resolved_at is null;
