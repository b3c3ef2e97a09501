/** The kinds of balance transaction (docs/balances.md): one per on-chain money movement's leg. */
export const BALANCE_TRANSACTION_TYPES = [
  'payment_service_fee', 'payment_platform_fee', 'payment_merchant_available', 'payment_reserve_hold',
  'authorization_hold', 'authorization_return', 'authorization_void', 'authorization_reclaim',
  'refund_from_reserve', 'refund_from_submitter', 'reserve_release', 'reserve_release_failed',
] as const;
export type BalanceTransactionType = (typeof BALANCE_TRANSACTION_TYPES)[number];

/** One ledger page's query (balanceRepo.ledgerPage, ledger-branches.ts). */
export type LedgerFilter = {
  platformId: string; merchantId?: string | undefined; types: readonly BalanceTransactionType[];
  from?: Date | undefined; to?: Date | undefined; before?: { time: Date; id: string } | null; limit: number;
  serviceTreasury: string | null;
};
