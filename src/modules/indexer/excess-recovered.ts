import type { Tx } from '../../db/client.js';
import type { Logger } from '../../lib/logger.js';
import type { RouterLog } from './events.js';
import { indexerRepo } from './repo.js';

/** The owner moved balance − reserved out: recorded as an alert, and the unmatched transfers it covered are marked recovered. */
export async function applyExcessRecovered(tx: Tx, logger: Logger, chainId: number, log: Extract<RouterLog, { eventName: 'ExcessRecovered' }>, blockTime: Date) {
  const { token, to, amount } = log.args;
  await indexerRepo.alert(tx, chainId, 'excess_recovered', { token, to, amount, tx_hash: log.transactionHash, block_number: log.blockNumber });
  await indexerRepo.markRecovered(tx, chainId, token, { block: log.blockNumber, logIndex: log.logIndex, txHash: log.transactionHash, time: blockTime });
  logger.warn({ chain_id: chainId, tx_hash: log.transactionHash, token, to, amount: amount.toString() }, 'router excess recovered by its owner');
}
