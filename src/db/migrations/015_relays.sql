-- Gasless payment (issue 17): relays of a buyer's ERC-3009 ReceiveWithAuthorization through
-- PaymentRouter.payOrderWithAuthorization, sent by the relayer key through the operator-transaction outbox.

-- The outbox serves two keys now: the operator's and the relayer's. Each has its own sender (lease per
-- chain and address already); an intent names the key that must send it.
alter table operator_txs add column key_role text not null default 'operator' check (key_role in ('operator', 'relayer'));
drop index operator_txs_open_idx;
create index operator_txs_open_idx on operator_txs (chain_id, key_role, seq) where state in ('queued', 'signed', 'sent', 'mined');

create table relays (
  id text primary key,                          -- rly_…
  order_id text not null references orders(id),
  platform_id text not null references platforms(id),
  chain_id integer not null,
  via text not null check (via in ('checkout', 'api')),
  payer text not null,                          -- `from`: the holder who signed; the order's payer once paid
  valid_after numeric(78, 0) not null,
  valid_before numeric(78, 0) not null,
  nonce text not null,                          -- hashPayOrder(order)
  authorization_sig text not null,
  state text not null check (state in ('pending', 'succeeded', 'failed')),
  operator_tx_id text not null,
  error_code text,
  error_message text,
  tx_hash text,                                 -- the mined transaction (also while pending: operator_txs.tx_hash)
  gas_used bigint,
  gas_cost_wei numeric(78, 0),                  -- gas used × effective gas price, paid by the relayer
  day date not null,                            -- UTC day on the chain clock, for the platform's daily cap
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
-- One relay in flight per order.
create unique index relays_in_flight_idx on relays (order_id) where state = 'pending';
create index relays_order_idx on relays (order_id, created_at);

-- Per platform per UTC day: relays accepted (the cap counts these) and the relayer's gas spent on them.
create table relay_daily_usage (
  platform_id text not null references platforms(id),
  day date not null,
  relays integer not null default 0,
  gas_cost_wei numeric(78, 0) not null default 0,
  primary key (platform_id, day)
);

-- The public session read shows the order's latest relay (migration 008's cache): tell every instance when it changes.
create function notify_public_session_relay() returns trigger language plpgsql as $$
begin
  perform pg_notify('trisettle_public_session', new.order_id);
  return null;
end $$;
create trigger relays_public_session after insert or update on relays
  for each row execute function notify_public_session_relay();

create function notify_public_session_relay_tx() returns trigger language plpgsql as $$
declare oid text;
begin
  select order_id into oid from relays where operator_tx_id = new.id;
  if oid is not null then perform pg_notify('trisettle_public_session', oid); end if;
  return null;
end $$;
create trigger operator_txs_relay_public_session after update of tx_hash on operator_txs
  for each row when (new.purpose = 'relay' and old.tx_hash is distinct from new.tx_hash)
  execute function notify_public_session_relay_tx();
create index relays_operator_tx_idx on relays (operator_tx_id);
