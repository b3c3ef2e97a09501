-- Who paid the part of a refund the reserve did not cover: the `from` of the USDC transfer to the router that the
-- Refunded event's `fromSubmitter` accounts for (same transaction). Null for refunds paid wholly from the reserve
-- and for refunds completed before this column existed.
alter table refunds add column funded_by text;
