import { hostname } from 'node:os';
import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import { randomBase62 } from '../../lib/ids.js';
import type { Logger } from '../../lib/logger.js';
import type { ChainsService } from '../chains/service.js';
import { createSenderLoops } from './loop.js';
import { operatorTxsRepo } from './repo.js';
import { accountOf, rolesOf, runSenders } from './run-once.js';
import { DEFAULT_SENDER_OPTIONS, type KeyRole, type OperatorTxPurpose, type OutcomeHandler, type SenderOptions } from './types.js';

export type OperatorTxsDeps = { db: Db; config: Config; chains: ChainsService; logger: Logger; options?: Partial<SenderOptions> };

/**
 * The one operator sender (issue 15, item 7). Owners enqueue intents in their own transactions and
 * register a handler per purpose for the final outcome; the loop (workers only) sends them from the
 * instance holding the database lease for (chain, operator address).
 */
export function createOperatorTxs(deps: OperatorTxsDeps) {
  const { db, config, chains } = deps;
  const handlers = new Map<OperatorTxPurpose, OutcomeHandler>();
  const options: SenderOptions = { ...DEFAULT_SENDER_OPTIONS, leaseMs: config.operatorLeaseSeconds * 1000, relayerGasLimit: config.relayerGasLimit, ...deps.options };
  const holder = `${hostname()}:${process.pid}:${randomBase62(6)}`;
  const senders = { db, chains, logger: deps.logger, holder, options, handlers, fault: config.operatorTxFault };
  const runOnce = (chainId: number, only?: KeyRole) => runSenders(senders, chainId, only);
  const loops = createSenderLoops(deps.logger, (chainId, role) => runOnce(chainId, role));
  return {
    holder,
    /** The owner's outcome handler for a purpose (one per purpose; runs inside the delivering transaction). */
    register(purpose: OperatorTxPurpose, handler: OutcomeHandler) {
      handlers.set(purpose, handler);
    },
    runOnce,
    start(pollMs = config.env === 'devnet' ? 500 : 2_000) {
      for (const role of rolesOf(chains)) {
        for (const rt of chains.list()) if (!loops.running(rt.chainId, role)) loops.start(rt.chainId, role, pollMs);
      }
    },
    /** A pass of this process's sender for the key now (an intent was just enqueued here); a no-op where no loop runs. */
    poke: (role: KeyRole) => loops.poke(role),
    /** Whether this process runs the operator's sender loop for the chain (the test clock pokes it instead of a pass beside it). */
    running: (chainId: number) => loops.running(chainId, 'operator'),
    /** Stops the loops and hands the leases back at once (a SIGKILLed holder's lapse instead). */
    async stop() {
      await loops.stop();
      for (const role of rolesOf(chains)) {
        const account = accountOf(chains, role)!;
        for (const rt of chains.list()) await operatorTxsRepo.releaseLease(db, rt.chainId, account.address, holder).catch(() => undefined);
      }
    },
    list: (chainId: number) => operatorTxsRepo.listByChain(db, chainId),
    forRef: (purpose: OperatorTxPurpose, refId: string) => operatorTxsRepo.forRef(db, purpose, refId),
  };
}

export type OperatorTxs = ReturnType<typeof createOperatorTxs>;
