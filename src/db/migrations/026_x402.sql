-- x402 payments (issue 28): a buyer's ERC-3009 TransferWithAuthorization (to = the router, random nonce), sent
-- in a PAYMENT-SIGNATURE header, verified, and relayed as PaymentRouter.payOrderWithTransfer by the relayer key
-- through the same relay machinery (budget, cap, bans, outbox) as gasless payments.

-- An x402 relay is a relay: same budget, cap, in-flight limits and outcome handling.
alter table relays drop constraint relays_via_check;
alter table relays add constraint relays_via_check check (via in ('checkout', 'api', 'x402'));

create table x402_payments (
  id text primary key,                          -- x402_…
  order_id text not null references orders(id),
  session_id text references checkout_sessions(id),
  platform_id text not null references platforms(id),
  chain_id integer not null,
  token_address text not null,
  payer text not null,                          -- authorization.from, checksummed
  nonce text not null,                          -- the buyer's random ERC-3009 nonce
  value numeric(78, 0) not null,
  valid_after numeric(78, 0) not null,
  valid_before numeric(78, 0) not null,
  signature text not null,
  -- The PayOrder the service signed for this payment: the order locked to this payer (payer = from).
  pay_order jsonb not null,
  pay_order_sig text not null,
  -- pending: relay accepted; settled: payOrderWithTransfer succeeded; failed: it did not (refused or reverted);
  -- front_run: the authorization reached USDC without the router's X402Settled (indexer, attribute or return).
  status text not null check (status in ('pending', 'settled', 'failed', 'front_run', 'attributed', 'returned')),
  relay_id text references relays(id),
  tx_hash text,
  error text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
-- A nonce is spent once per payer (the token says so too; this refuses a replay without a chain call).
create unique index x402_payments_nonce_idx on x402_payments (chain_id, payer, nonce);
-- One x402 payment in flight per order: a second authorization is refused before anything is sent.
create unique index x402_payments_in_flight_idx on x402_payments (order_id) where status = 'pending';
create index x402_payments_order_idx on x402_payments (order_id, created_at);
