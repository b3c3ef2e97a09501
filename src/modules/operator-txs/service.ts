import { hostname } from 'node:os';
import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import { randomBase62 } from '../../lib/ids.js';
import type { Logger } from '../../lib/logger.js';
import { describeError } from '../../lib/redact-urls.js';
import type { ChainsService } from '../chains/service.js';
import type { SenderContext } from './context.js';
import { enqueueOperatorTx } from './enqueue.js';
import { operatorTxsRepo } from './repo.js';
import { senderTick } from './tick.js';
import { DEFAULT_SENDER_OPTIONS, type OperatorTxPurpose, type OutcomeHandler, type SenderOptions } from './types.js';

export type OperatorTxsDeps = { db: Db; config: Config; chains: ChainsService; logger: Logger; options?: Partial<SenderOptions> };

/**
 * The one operator sender (issue 15, item 7). Owners enqueue intents in their own transactions and
 * register a handler per purpose for the final outcome; the loop (workers only) sends them from the
 * instance holding the database lease for (chain, operator address).
 */
export function createOperatorTxs(deps: OperatorTxsDeps) {
  const { db, config, chains, logger } = deps;
  const handlers = new Map<OperatorTxPurpose, OutcomeHandler>();
  const options: SenderOptions = { ...DEFAULT_SENDER_OPTIONS, leaseMs: config.operatorLeaseSeconds * 1000, ...deps.options };
  const holder = `${hostname()}:${process.pid}:${randomBase62(6)}`;
  const loops = new Map<number, { running: boolean; timer?: NodeJS.Timeout; current: Promise<unknown> }>();

  const context = (): SenderContext | null =>
    chains.operator ? { db, chains, logger, account: chains.operator, holder, options, handlers, fault: config.operatorTxFault } : null;

  async function runOnce(chainId: number): Promise<boolean> {
    const ctx = context();
    return ctx ? senderTick(ctx, chainId) : false;
  }

  function loop(chainId: number, pollMs: number) {
    const l: { running: boolean; timer?: NodeJS.Timeout; current: Promise<unknown> } = { running: true, current: Promise.resolve() };
    loops.set(chainId, l);
    const step = async () => {
      if (!l.running) return;
      l.current = runOnce(chainId).catch((err: unknown) => logger.warn({ chain_id: chainId, err: describeError(err) }, 'operator sender pass failed'));
      await l.current;
      if (l.running) l.timer = setTimeout(step, pollMs);
    };
    l.timer = setTimeout(step, 0);
  }

  return {
    holder,
    enqueue: enqueueOperatorTx,
    /** The owner's outcome handler for a purpose (one per purpose; runs inside the delivering transaction). */
    register(purpose: OperatorTxPurpose, handler: OutcomeHandler) {
      handlers.set(purpose, handler);
    },
    runOnce,
    start(pollMs = config.env === 'devnet' ? 500 : 2_000) {
      if (!chains.operator) return;
      for (const rt of chains.list()) if (!loops.get(rt.chainId)?.running) loop(rt.chainId, pollMs);
    },
    /** Stops the loops and hands the leases back at once (a SIGKILLed holder's lapse instead). */
    async stop() {
      for (const l of loops.values()) {
        l.running = false;
        clearTimeout(l.timer);
        await l.current;
      }
      loops.clear();
      if (!chains.operator) return;
      for (const rt of chains.list()) await operatorTxsRepo.releaseLease(db, rt.chainId, chains.operator.address, holder).catch(() => undefined);
    },
    list: (chainId: number) => operatorTxsRepo.listByChain(db, chainId),
    forRef: (purpose: OperatorTxPurpose, refId: string) => operatorTxsRepo.forRef(db, purpose, refId),
  };
}

export type OperatorTxs = ReturnType<typeof createOperatorTxs>;
