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
import { DEFAULT_SENDER_OPTIONS, type KeyRole, type OperatorTxPurpose, type OutcomeHandler, type SenderOptions } from './types.js';

const KEY_ROLES: KeyRole[] = ['operator', 'relayer'];

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
  const loops = new Map<string, { running: boolean; timer?: NodeJS.Timeout; current: Promise<unknown> }>();

  /** The operator's sender, and the relayer's (gasless payments): same outbox, own key, own lease and nonces. */
  const accountOf = (role: KeyRole) => (role === 'operator' ? chains.operator : chains.relayer);
  const context = (keyRole: KeyRole): SenderContext | null => {
    const account = accountOf(keyRole);
    return account ? { db, chains, logger, account, keyRole, holder, options, handlers, fault: config.operatorTxFault } : null;
  };
  const roles = (): KeyRole[] => KEY_ROLES.filter((r) => accountOf(r) !== null);

  /** One pass of each key's sender on the chain; whether this instance held the operator's lease. */
  async function runOnce(chainId: number, only?: KeyRole): Promise<boolean> {
    let held = false;
    for (const role of only ? [only] : roles()) {
      const ctx = context(role);
      const got = ctx ? await senderTick(ctx, chainId) : false;
      if (role === 'operator' || only) held = got;
    }
    return held;
  }

  function loop(chainId: number, role: KeyRole, pollMs: number) {
    const l: { running: boolean; timer?: NodeJS.Timeout; current: Promise<unknown> } = { running: true, current: Promise.resolve() };
    loops.set(`${chainId}:${role}`, l);
    const step = async () => {
      if (!l.running) return;
      l.current = runOnce(chainId, role).catch((err: unknown) => logger.warn({ chain_id: chainId, key: role, err: describeError(err) }, 'operator sender pass failed'));
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
      for (const role of roles()) {
        for (const rt of chains.list()) if (!loops.get(`${rt.chainId}:${role}`)?.running) loop(rt.chainId, role, pollMs);
      }
    },
    /** Stops the loops and hands the leases back at once (a SIGKILLed holder's lapse instead). */
    async stop() {
      for (const l of loops.values()) {
        l.running = false;
        clearTimeout(l.timer);
        await l.current;
      }
      loops.clear();
      for (const role of roles()) {
        const account = accountOf(role)!;
        for (const rt of chains.list()) await operatorTxsRepo.releaseLease(db, rt.chainId, account.address, holder).catch(() => undefined);
      }
    },
    list: (chainId: number) => operatorTxsRepo.listByChain(db, chainId),
    forRef: (purpose: OperatorTxPurpose, refId: string) => operatorTxsRepo.forRef(db, purpose, refId),
  };
}

export type OperatorTxs = ReturnType<typeof createOperatorTxs>;
