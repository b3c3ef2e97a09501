-- One served resource per x402 payment (issue 35): the first settle answer that reports a payment as paid claims
-- it here (compare-and-set on null); every later settle of the same (payer, nonce), re-cased or replayed, is
-- answered success:false, invalid_exact_evm_nonce_already_used (modules/x402/facilitator.ts). Payments already
-- paid were answered when they were paid.
alter table x402_payments add column answered_at timestamptz;
update x402_payments set answered_at = updated_at where status in ('settled', 'attributed');
