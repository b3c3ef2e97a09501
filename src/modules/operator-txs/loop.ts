import type { Logger } from '../../lib/logger.js';
import { describeError } from '../../lib/redact-urls.js';
import type { KeyRole } from './types.js';

type Loop = { running: boolean; timer?: NodeJS.Timeout; current: Promise<unknown>; busy: boolean; poked: boolean; step: () => void };

/**
 * The sender's timers: one loop per (chain, key), a pass every `pollMs`. `poke` asks for a pass now (an owner
 * just enqueued in this process): pokes during a pass coalesce into one more pass right after it, so a burst
 * of intents is sent in a few large batches rather than waiting for the next poll.
 */
export function createSenderLoops(logger: Logger, pass: (chainId: number, role: KeyRole) => Promise<unknown>) {
  const loops = new Map<string, Loop>();

  function start(chainId: number, role: KeyRole, pollMs: number) {
    const l: Loop = { running: true, current: Promise.resolve(), busy: false, poked: false, step: () => undefined };
    l.step = async () => {
      if (!l.running || l.busy) return;
      clearTimeout(l.timer);
      l.busy = true;
      l.poked = false;
      l.current = pass(chainId, role).catch((err: unknown) => logger.warn({ chain_id: chainId, key: role, err: describeError(err) }, 'operator sender pass failed'));
      await l.current;
      l.busy = false;
      if (l.running) l.timer = setTimeout(l.step, l.poked ? 0 : pollMs);
    };
    loops.set(`${chainId}:${role}`, l);
    l.timer = setTimeout(l.step, 0);
  }

  return {
    running: (chainId: number, role: KeyRole) => loops.get(`${chainId}:${role}`)?.running ?? false,
    start,
    poke(role: KeyRole) {
      for (const [key, l] of loops) {
        if (!key.endsWith(`:${role}`) || !l.running) continue;
        if (l.busy) l.poked = true;
        else void l.step();
      }
    },
    async stop() {
      for (const l of loops.values()) {
        l.running = false;
        clearTimeout(l.timer);
        await l.current;
      }
      loops.clear();
    },
  };
}
