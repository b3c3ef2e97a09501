-- Operator transactions (issue 15, item 7): an outbox of chain transactions sent by the operator key.
-- Owners (refunds, settlements, order cancellation) insert an intent inside their own transaction; one
-- sender per (chain, operator address) — the holder of operator_leases — simulates, signs, records the
-- nonce and the raw signed transaction (committed) and only then broadcasts.
create table operator_txs (
  id text primary key,
  seq bigserial not null unique,                -- intents are sent in this order
  chain_id integer not null,
  purpose text not null,                        -- 'refund' | 'refund_cancel' | 'settlement' | 'order_cancel'
  ref_id text not null,                         -- the owner's row (refund, settlement, order)
  to_address text not null,
  calldata text not null,
  state text not null check (state in ('queued', 'signed', 'sent', 'mined', 'done', 'rejected')),
  sender text,                                  -- operator address that signed it
  nonce bigint,
  tx_hash text,                                 -- latest attempt (see operator_tx_attempts for every one)
  raw_tx text,
  gas_limit bigint,
  max_fee_per_gas numeric(78, 0),
  max_priority_fee_per_gas numeric(78, 0),
  signed_at timestamptz,
  sent_at timestamptz,                          -- last (re-)broadcast
  broadcasts integer not null default 0,
  outcome text check (outcome in ('success', 'reverted', 'rejected')),
  error text,                                   -- decoded custom error name, or a redacted RPC reason
  block_number bigint,
  block_hash text,
  gas_used bigint,
  effective_gas_price numeric(78, 0),
  mined_at timestamptz,
  delivered_at timestamptz,                     -- the owner's handler ran (inside that same transaction)
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index operator_txs_open_idx on operator_txs (chain_id, seq) where state in ('queued', 'signed', 'sent', 'mined');
create index operator_txs_ref_idx on operator_txs (purpose, ref_id);
create unique index operator_txs_nonce_idx on operator_txs (chain_id, sender, nonce) where nonce is not null;

-- Every signed transaction of an intent (the first and each fee-bumped replacement, same nonce).
create table operator_tx_attempts (
  tx_hash text primary key,
  operator_tx_id text not null references operator_txs(id),
  nonce bigint not null,
  raw_tx text not null,
  max_fee_per_gas numeric(78, 0) not null,
  max_priority_fee_per_gas numeric(78, 0) not null,
  created_at timestamptz not null default now()
);
create index operator_tx_attempts_tx_idx on operator_tx_attempts (operator_tx_id);

-- One sender per (chain, operator address): the lease holder. next_nonce is the nonce after the last one
-- recorded; a new holder continues from it (or from the chain's count, whichever is higher).
create table operator_leases (
  chain_id integer not null,
  sender text not null,
  holder text not null,
  expires_at timestamptz not null,
  next_nonce bigint not null default 0,
  renewed_at timestamptz not null default now(),
  primary key (chain_id, sender)
);

-- Refunds: re-submission schedule and on-chain cancellation.
alter table refunds add column operator_tx_id text;
alter table refunds add column attempts integer not null default 0;
alter table refunds add column next_attempt_at timestamptz;
alter table refunds add column last_error text;
alter table refunds add column cancel_requested_at timestamptz;
alter table refunds add column cancel_reason text;
alter table refunds add column cancel_tx_id text;

-- Settlements: the operator transaction that carries the batch.
alter table settlements add column operator_tx_id text;

-- Orders: the reserve hold the router recorded at payment (OrderPaid.releaseAfter), and a requested cancellation.
alter table orders add column reserve_release_at timestamptz;
alter table orders add column cancel_requested_at timestamptz;
alter table orders add column cancel_reason text;
create index orders_release_due_idx on orders (chain_id, reserve_release_at) where settlement_id is null and reserve_remaining > 0;
