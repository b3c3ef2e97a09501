-- Gasless relay abuse bounds (issue 26, items 1–3): one relay in flight per payer, bans of payers whose relays
-- failed for a cause they control, the relayer's daily budget, and the counts the usage endpoint shows.

-- At most one relay in flight per payer, across all orders (relays_in_flight_idx keeps one per order).
create unique index relays_payer_in_flight_idx on relays (payer) where state = 'pending';

-- What the relay reserved of the relayer's day at accept (gas limit × max fee per gas); settled on its outcome.
alter table relays add column reserved_wei numeric(78, 0) not null default 0;

-- The most an intent may bid per gas (the relay's reservation); null: the sender's own cap only.
alter table operator_txs add column max_fee_cap numeric(78, 0);

-- Per platform per day: relays that failed (reverted on chain, or refused by the sender's re-simulation; their
-- slot of the cap is given back) and relay requests refused because the payer is not eligible.
alter table relay_daily_usage add column reverted integer not null default 0;
alter table relay_daily_usage add column refused integer not null default 0;

-- Per payer (checksummed address): relays that failed for a cause it controls, requests refused while banned,
-- and the ban: no gasless until `banned_until` (unix seconds, chain clock).
create table relay_payers (
  payer text primary key,
  reverted integer not null default 0,
  refused integer not null default 0,
  banned_until bigint,
  ban_reason text,
  updated_at timestamptz not null default now()
);

-- A payer whose relay of an order failed for a cause it controls never relays that order again.
create table relay_order_bans (
  order_id text not null references orders(id),
  payer text not null,
  reason text not null,
  created_at timestamptz not null default now(),
  primary key (order_id, payer)
);

-- The relayer's spend per chain per UTC day (chain clock): reserved by relays not settled yet, spent by settled
-- ones (gas used × effective gas price). `refused_wei`: the last reservation the day could not take.
create table relayer_budget_days (
  chain_id integer not null,
  day date not null,
  reserved_wei numeric(78, 0) not null default 0,
  spent_wei numeric(78, 0) not null default 0,
  refused_wei numeric(78, 0),
  alerted_at timestamptz,
  primary key (chain_id, day)
);
