import { claimDue } from './claim.js';
import { deliverOne } from './deliver-one.js';
import type { DelivererCtx } from './deliverer-context.js';

/**
 * The instance's attempts in flight (at most ctx.concurrency). `claimAndStart` fills the free slots from the
 * due deliveries and starts their attempts without waiting for them; `freed` runs whenever one ends.
 */
export function createAttemptPool(ctx: DelivererCtx, freed: () => void) {
  const inflight = new Set<Promise<void>>();
  let claiming: Promise<unknown> = Promise.resolve();

  /** Claims are serialised within the instance so two callers never count the same free slots. */
  function claimAndStart(): Promise<Promise<void>[]> {
    const next = claiming.then(async () => {
      const slots = ctx.concurrency - inflight.size;
      if (slots <= 0) return [];
      const { jobs, leaseEndsAt } = await claimDue(ctx, slots);
      return jobs.map((job) => {
        const p: Promise<void> = deliverOne(ctx, job, leaseEndsAt)
          .catch((err) => ctx.log.error({ err, delivery_id: job.id }, 'webhook attempt crashed; the lease will lapse and it will be retried'))
          .finally(() => {
            inflight.delete(p);
            freed();
          });
        inflight.add(p);
        return p;
      });
    });
    claiming = next.catch(() => undefined);
    return next;
  }

  return {
    claimAndStart,
    /** Waits for the claim in progress and every attempt in flight (recorded). */
    async drain() {
      await claiming;
      await Promise.all([...inflight]);
    },
    size: () => inflight.size,
  };
}
