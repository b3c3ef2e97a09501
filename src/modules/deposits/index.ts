import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import { systemClock, type Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import type { ChainsService } from '../chains/service.js';
import { lazyPayOrderSigner } from '../orders/deps.js';
import type { Tx } from '../../db/client.js';
import type { DepositLog } from '../indexer/events.js';
import type { OperatorTxOutcome } from '../operator-txs/types.js';
import { applyDepositLog, depositsFollowOrders } from './apply.js';
import { createDepositAddress } from './create.js';
import { retryDueSweeps } from './retry-pass.js';
import { onSweepOutcome } from './sweep.js';
import type { DepositsDeps } from './deps.js';
import { depositsRepo } from './repo.js';

/** Per-order deposit addresses (docs/deposits.md): the API's half here, the indexer's in apply.ts, the relayer's sweeps in sweep.ts. */
export function createDepositsService(o: { db: Db; config: Config; chains: ChainsService; logger: Logger; clock?: Clock; changing?: (orderId: string) => void }) {
  const deps: DepositsDeps = { ...o, clock: o.clock ?? systemClock, sign: lazyPayOrderSigner(o.chains), changing: o.changing ?? (() => {}) };
  return {
    deps,
    create: (q: { orderId: string; platformId: string | null }, refundAddress: string) => createDepositAddress(deps, q, refundAddress),
    /** The deposit addresses the indexer reads transfers and forwarder events for on `chainId` (lowercase). */
    watched: (chainId: number) => depositsRepo.watched(o.db, chainId, deps.clock.now()),
    /** The indexer's handler of a new deposit log (indexer/handlers.ts DepositHandlers). */
    apply: (tx: Tx, chainId: number, log: DepositLog, blockTime: Date) => applyDepositLog(deps, tx, chainId, log, blockTime),
    /** The relayer's outcome of a deposit_sweep intent. */
    onSweepOutcome: (tx: Tx, outcome: OperatorTxOutcome) => onSweepOutcome(deps, tx, outcome),
    /** The deposits pass on one chain (workers.ts): sweeps whose retry time has come; how many it enqueued. */
    retryDue: (chainId: number) => retryDueSweeps(deps, chainId),
    /** Subscribed to order transitions: expired or paid-elsewhere orders return what their deposit holds. */
    followOrders: depositsFollowOrders(deps),
  };
}

export type DepositsService = ReturnType<typeof createDepositsService>;
