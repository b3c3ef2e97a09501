-- Charge later (issue 27; docs/integration.md "Charge later"): an order created with capture_method 'manual' is
-- paid as an AUTHORIZATION (the router holds the money: OrderAuthorized), then captured once (all or part:
-- OrderCaptured + OrderPaid) or voided (AuthorizationVoided) by the service, or reclaimed by the payer after
-- capture_before (AuthorizationReclaimed).
alter table orders drop constraint orders_state_check;
alter table orders add constraint orders_state_check
  check (state in ('pending_payment', 'authorized', 'confirmed', 'partially_refunded', 'refunded', 'failed', 'expired', 'voided'));

alter table orders add column capture_method text not null default 'automatic' check (capture_method in ('automatic', 'manual'));
-- deadline_at + capture_within_seconds: the signed PayOrder's captureDeadline (the router's clock decides).
alter table orders add column capture_before timestamptz;
alter table orders add constraint orders_capture_before_check check (capture_method = 'automatic' or capture_before is not null);
-- Base units held for the order (set by OrderAuthorized; = amount for an automatic order once paid) and paid out
-- (OrderCaptured; = amount for an automatic order once paid). The split columns follow the captured amount.
alter table orders add column amount_authorized bigint not null default 0;
alter table orders add column amount_captured bigint not null default 0;
alter table orders add column authorized_at timestamptz;          -- OrderAuthorized block time
alter table orders add column authorization_tx_hash text;
-- Requests (owned by modules/authorizations): at most one open capture or void per order.
alter table orders add column capture_requested_at timestamptz;
alter table orders add column capture_requested_amount bigint;
-- Captures sent for the order: a refused one may be asked again, at most MAX_CAPTURE_ATTEMPTS times (operator gas).
alter table orders add column capture_attempts integer not null default 0;
alter table orders add column void_requested_at timestamptz;
alter table orders add column void_requested_reason text check (void_requested_reason in ('requested', 'authorization_expired'));
alter table orders add column void_reason text check (void_reason in ('requested', 'authorization_expired', 'reclaimed_by_payer'));
alter table orders add column voided_at timestamptz;              -- AuthorizationVoided / AuthorizationReclaimed block time
alter table orders add column void_tx_hash text;

update orders set amount_authorized = amount, amount_captured = amount where paid_at is not null;

-- The split columns are the split of what was paid out: the amount, or once captured the captured part of an
-- authorization (the signed full-amount split until then). Refunds stay within what was paid out.
alter table orders drop constraint orders_check;   -- service_fee + platform_fee + merchant_gross = amount
alter table orders add constraint orders_split_check check (service_fee + platform_fee + merchant_gross
  = case when capture_method = 'manual' and amount_captured > 0 then amount_captured else amount end);
alter table orders drop constraint orders_check2;  -- refunded_amount between 0 and amount
alter table orders add constraint orders_refunded_check check (refunded_amount >= 0
  and refunded_amount <= case when capture_method = 'manual' then amount_captured else amount end);
alter table orders add constraint orders_captured_check check (amount_captured between 0 and amount_authorized and amount_authorized <= amount);

-- The authorization sweeper: authorized orders whose capture window has ended on the indexed chain clock.
create index orders_authorized_due_idx on orders (chain_id, capture_before) where state = 'authorized';
-- Authorized-not-captured per platform (GET /v1/balance `authorized`; the ledger's authorization legs).
create index orders_authorized_at_idx on orders (platform_id, authorized_at desc, id desc) where authorized_at is not null;
create index orders_voided_at_idx on orders (platform_id, voided_at desc, id desc) where voided_at is not null;

-- A void is sent once per order (the platform's, or the sweeper's when capture_before passed): two sweepers, or a
-- sweeper and a request, can never queue two.
create unique index operator_txs_void_once on operator_txs (chain_id, ref_id) where purpose = 'authorization_void';
