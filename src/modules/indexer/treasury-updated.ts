import type { Tx } from '../../db/client.js';
import type { RouterLog } from './events.js';
import { indexerRepo } from './repo.js';

/** The owner pointed the service fee at another treasury (or the constructor set the first): the ledger's history of it. */
export async function applyTreasuryUpdated(tx: Tx, chainId: number, log: Extract<RouterLog, { eventName: 'ServiceTreasuryUpdated' }>, blockTime: Date) {
  await indexerRepo.recordTreasury(tx, {
    chain_id: chainId, router: log.address.toLowerCase(), block_number: log.blockNumber, log_index: log.logIndex, tx_hash: log.transactionHash,
    previous: log.args.previousTreasury, treasury: log.args.newTreasury, block_time: blockTime,
  });
}
