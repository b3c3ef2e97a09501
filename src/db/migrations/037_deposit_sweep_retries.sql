-- Deposit sweeps share the relayer's day (relayer_budget_days, RELAYER_DAILY_BUDGET_WEI) and the platform's relay gas
-- (relay_daily_usage.gas_cost_wei). A sweep that could not go now (a failed send, a limit of the day, a deposit
-- deadline not reached yet) has next_sweep_at: the deposits pass tries it again then (docs/deposits.md "Retries").
alter table deposits
  add column sweep_gas_wei numeric(78, 0) not null default 0,
  add column sweep_failures integer not null default 0,
  add column next_sweep_at timestamptz;
create index deposits_next_sweep_idx on deposits (next_sweep_at) where next_sweep_at is not null and sweep_pending = false;
-- DEPOSIT_SWEEPS_PER_PLATFORM_PER_DAY counts on the platform's relay day (UTC, chain clock), taken atomically at enqueue.
alter table relay_daily_usage add column sweeps integer not null default 0;
