import type { Db } from '../../db/client.js';
import { systemClock, type Clock } from '../../lib/clock.js';
import { closeAllBalances } from './close-all.js';
import { getBalance } from './get-balance.js';
import { ledgerRows, listBalanceTransactions, type LedgerQuery } from './list-transactions.js';
import { netVolume } from './net-volume.js';

/** `serviceTreasury` is read per request: the devnet sets it after the services are built. */
export type BalanceDeps = { db: Db; serviceTreasury: () => string | null; clock?: Clock };

/** Balances, the ledger of on-chain money movements, and net volume (docs/balances.md). Reads never write. */
export function createBalanceService(deps: BalanceDeps) {
  const ledger = () => ({ db: deps.db, serviceTreasury: deps.serviceTreasury() });
  const clock = deps.clock ?? systemClock;
  return {
    get: (platformId: string, merchantId?: string) => getBalance(deps.db, platformId, merchantId),
    transactions: (platformId: string, q: LedgerQuery) => listBalanceTransactions(ledger(), platformId, q),
    ledgerRows: (platformId: string, q: LedgerQuery, limit: number, before: { time: Date; id: string } | null) => ledgerRows(ledger(), platformId, q, limit, before),
    netVolume: (platformId: string, days: number) => netVolume(deps.db, platformId, days, clock),
    /** The balance-closings worker's pass; the only writer of the closing tables. */
    closeAll: () => closeAllBalances(deps.db),
  };
}
export type BalanceService = ReturnType<typeof createBalanceService>;
