import type { Db } from '../../db/client.js';
import { closeBalances } from './close-balances.js';
import { balanceRepo } from './repo.js';

/**
 * The balance-closings worker's pass (src/workers.ts): moves every platform's closing point up to the minute the
 * indexed chain time has reached. Reads never write: they sum the closed part and whatever lies after the closing
 * point, so they stay correct when this worker lags or does not run (only slower: the live part is longer).
 * Several instances may run it at once; the closing row's lock makes each window close once.
 */
export async function closeAllBalances(db: Db): Promise<number> {
  const platforms = await balanceRepo.platformsToClose(db);
  for (const p of platforms) await closeBalances(db, p);
  return platforms.length;
}
