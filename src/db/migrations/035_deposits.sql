-- Per-order deposit addresses (docs/deposits.md). The three fields the order object shows live on orders (one row
-- to serialize, and the public-session NOTIFY below sees them change); the rest of a deposit is its own row.
alter table orders
  add column deposit_address text,
  add column refund_address text,
  add column amount_received int8 not null default 0;
create unique index orders_deposit_address_idx on orders (chain_id, deposit_address) where deposit_address is not null;

-- late_payment: what a transfer to the deposit after the session's expiry gets (docs/decisions.md).
alter table checkout_sessions add column late_payment text not null default 'return' check (late_payment in ('return', 'accept'));

create table deposits (
  order_id text primary key references orders (id),
  platform_id text not null,
  chain_id integer not null,
  -- Lowercase: the indexer compares Transfer topics with it.
  address text not null,
  refund_to text not null,
  factory text not null,
  -- The forwarder's own deadline (unix seconds, chain clock): the order's, or later for late_payment accept.
  deadline int8 not null,
  -- The service's PayOrder signature with payer = address, captureDeadline = 0.
  signature text not null,
  -- A sweep the relayer was asked to send and has not resolved yet (one at a time per deposit).
  sweep_pending boolean not null default false,
  sweeps_sent integer not null default 0,
  -- Set once a sweep is refused by the limits (dust, caps): the funds wait for anyone's sweep (docs/deposits.md).
  sweep_refused text,
  amount_returned int8 not null default 0,
  -- Watched by the indexer until then (deadline + DEPOSIT_WATCH_DAYS): a transfer after it is left to the no-service path.
  watch_until timestamptz not null,
  created_at timestamptz not null default now()
);
create unique index deposits_address_idx on deposits (chain_id, address);
create index deposits_watch_idx on deposits (chain_id, watch_until);

-- The public checkout read shows the deposit fields: a change tells every instance's cache (migration 008).
create trigger orders_public_session_deposit after update of deposit_address, amount_received on orders
  for each row when (new.checkout_session_id is not null and (old.deposit_address is distinct from new.deposit_address or old.amount_received is distinct from new.amount_received))
  execute function notify_public_session_order();
