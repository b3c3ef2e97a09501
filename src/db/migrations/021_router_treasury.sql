-- Every ServiceTreasuryUpdated the router emitted (its constructor emits the first): the ledger's service-fee leg
-- goes to the treasury of the payment's time, not today's SERVICE_TREASURY.
create table router_treasury_updates (
  chain_id integer not null,
  router text not null,
  block_number bigint not null,
  log_index integer not null,
  tx_hash text not null,
  previous text not null,
  treasury text not null,
  block_time timestamptz not null,
  primary key (chain_id, router, block_number, log_index)
);
