import { createAttemptPool } from './attempt-pool.js';
import { delivererContext, type DelivererDeps, type DelivererOptions } from './deliverer-context.js';
import { createWakeups } from './wakeups.js';

export { DEFAULT_CONCURRENCY, DEFAULT_PER_ENDPOINT, DISABLE_AFTER_MS, type DelivererDeps, type DelivererOptions } from './deliverer-context.js';
export { USER_AGENT } from './deliver-one.js';

/**
 * The webhook deliverer. Claims due deliveries (leased, FOR UPDATE SKIP LOCKED; claim.ts), posts them
 * concurrently from a bounded pool (attempt-pool.ts, deliver-one.ts) and records every attempt
 * (record-attempt.ts; 2xx by group commit, record-successes.ts). A sending slot is free once its POST is
 * answered; the lease ends with the committed outcome. The running loop claims ahead (CLAIM_AHEAD × the caps)
 * as leases end, so a slow endpoint holds at most `perEndpoint` sends and delays no one else.
 */
export function createWebhookDeliverer(deps: DelivererDeps, opts: DelivererOptions = {}) {
  let stopping = false;
  const ctx = delivererContext(deps, opts, () => stopping);
  const pool = createAttemptPool(ctx, () => wakeups.schedule(0));
  const wakeups = createWakeups(() => pool.fill(), (err) => ctx.log.error({ err }, 'webhook claim failed'));
  return {
    /** Claims what is due now, attempts it and waits for those attempts; returns how many were attempted. */
    async runOnce(): Promise<number> {
      const started = await pool.claimAndStart();
      await Promise.all(started);
      return started.length;
    },
    /** Polls every `intervalMs` and whenever an attempt finishes; does not wait for attempts in flight. */
    start(intervalMs = 1000) {
      if (wakeups.start(intervalMs)) stopping = false;
    },
    /** New outbox rows were just committed (e.g. by the indexer): claim now instead of at the next poll. */
    poke() {
      wakeups.schedule(0);
    },
    /** Stops claiming and waits for attempts in flight to be recorded. */
    async stop() {
      stopping = true;
      wakeups.stop();
      await pool.drain();
      await ctx.agents.destroyAll();
    },
    inFlight: () => pool.size(),
  };
}

export type WebhookDeliverer = ReturnType<typeof createWebhookDeliverer>;
