import { claimDue, type ReadyJob } from './claim.js';
import { deliverOne } from './deliver-one.js';
import { FAILING_PER_ENDPOINT, type DelivererCtx } from './deliverer-context.js';
import { claimRepo } from './repo.js';

/**
 * The running loop leases this many times what it may send at once (per endpoint and in all), so the next
 * attempts are already claimed when a POST is answered: one claim statement fetches many rows, and the rows whose
 * outcome is waiting for its group commit do not hold back the next send. Claims are serialised and cost about the
 * same for 40 rows as for 80, so a busy endpoint's rate is bounded by the rows one claim can add under its lease
 * cap: at 4 × 32 one endpoint's claims carried 42 rows each; at 8 × 32, 83, and 40,000 deliveries ran 35 % faster
 * (10 endpoints 8 %, 100 endpoints 9 %; bench, same machine). A healthy but slow endpoint's queued rows whose lease
 * would not outlast their turn are left to lapse and claimed again (LEASE_MARGIN_MS), not sent late.
 */
export const CLAIM_AHEAD = 8;
/** A claimed row is sent only while its lease outlasts a whole attempt by this much; else it is left to lapse. */
const LEASE_MARGIN_MS = 5_000;

type Leased = { job: ReadyJob; leaseEndsAt: number; done: () => void };

/**
 * The instance's leased deliveries: queued (claimed, not sent yet), sending (at most ctx.concurrency, and
 * ctx.perEndpoint to one endpoint) and recording (answered, outcome not committed yet). A lease ends only with
 * a committed outcome, a release of a row never sent (stop), or its lapse. `fill` (running loop) claims ahead
 * up to CLAIM_AHEAD × the caps; `claimAndStart` (runOnce) claims only what it can send at once. Claims are
 * serialised within the instance so two callers never count the same free room. `freed` runs whenever a lease
 * ends here.
 */
// long: one closure over the queues, the sending counts and the leases; each inner function is short
export function createAttemptPool(ctx: DelivererCtx, freed: () => void) {
  /** Queued per endpoint, in claim order; endpoints in the order they are served next (round robin). */
  const queues = new Map<string, Leased[]>();
  const sendingTo = new Map<string, number>();
  /** Endpoints whose latest attempt failed (here, or as recorded when claimed): FAILING_PER_ENDPOINT in flight until a 2xx. */
  const failing = new Set<string>();
  const capOf = (ep: string) => (failing.has(ep) ? Math.min(FAILING_PER_ENDPOINT, ctx.perEndpoint) : ctx.perEndpoint);
  let sending = 0;
  const leased = new Set<Promise<void>>();
  let claiming: Promise<unknown> = Promise.resolve();

  /** Starts what the caps allow: each endpoint with room, in turn; one served goes to the back of the line. */
  function pump() {
    if (ctx.stopping()) return; // what is queued is given back by drain
    for (const [ep, q] of queues) {
      if (sending >= ctx.concurrency) return;
      const room = capOf(ep) - (sendingTo.get(ep) ?? 0);
      if (room <= 0) continue;
      for (const l of q.splice(0, Math.min(room, ctx.concurrency - sending))) send(l);
      queues.delete(ep);
      if (q.length > 0) queues.set(ep, q);
    }
  }

  function send(l: Leased) {
    if (Date.now() + ctx.timeoutMs + LEASE_MARGIN_MS > l.leaseEndsAt) return l.done(); // left to lapse; claimed again then
    const ep = l.job.endpoint_id;
    sending++;
    sendingTo.set(ep, (sendingTo.get(ep) ?? 0) + 1);
    let answered = false;
    const answer = (ok: boolean) => {
      if (answered) return;
      answered = true;
      if (ok) failing.delete(ep);
      else failing.add(ep);
      sending--;
      const n = sendingTo.get(ep)! - 1;
      if (n === 0) sendingTo.delete(ep);
      else sendingTo.set(ep, n);
      pump();
    };
    deliverOne(ctx, l.job, l.leaseEndsAt, answer)
      .catch((err) => ctx.log.error({ err, delivery_id: l.job.id }, 'webhook attempt crashed; the lease will lapse and it will be retried'))
      .finally(() => {
        answer(false);
        l.done();
      });
  }

  /** Leases up to `slots` rows (at most `perEndpoint` leased to one endpoint), queues them and starts what fits. */
  function claim(slots: (free: number) => number, perEndpoint: number): Promise<Promise<void>[]> {
    const next = claiming.then(async () => {
      const n = slots(ctx.concurrency * CLAIM_AHEAD - leased.size);
      if (n <= 0 || ctx.stopping()) return [];
      const { jobs, leaseEndsAt } = await claimDue(ctx, n, perEndpoint);
      const started = jobs.map((job) => {
        if (job.failing && !sendingTo.has(job.endpoint_id)) failing.add(job.endpoint_id);
        let done!: () => void;
        const p = new Promise<void>((resolve) => (done = resolve)).finally(() => {
          leased.delete(p);
          freed();
        });
        leased.add(p);
        const q = queues.get(job.endpoint_id);
        if (q) q.push({ job, leaseEndsAt, done });
        else queues.set(job.endpoint_id, [{ job, leaseEndsAt, done }]);
        return p;
      });
      pump();
      return started;
    });
    claiming = next.catch(() => undefined);
    return next;
  }

  return {
    /** runOnce: claims what can be sent at once (ctx.concurrency in all, ctx.perEndpoint per endpoint) and starts it. */
    claimAndStart: () => claim((free) => free - ctx.concurrency * (CLAIM_AHEAD - 1), ctx.perEndpoint),
    /** The running loop: claims ahead, up to CLAIM_AHEAD × both caps; resolves with how many rows it leased. */
    fill: async () => (await claim((free) => free, ctx.perEndpoint * CLAIM_AHEAD)).length,
    /** Waits for the claim in progress, gives back the leases of rows never sent and waits for every attempt in flight (recorded). */
    async drain() {
      await claiming;
      const unsent = [...queues.values()].flat();
      queues.clear();
      if (unsent.length > 0) {
        await claimRepo.release(ctx.db, unsent.map((l) => l.job.id), unsent.map((l) => l.job.lease_token))
          .catch((err) => ctx.log.warn({ err, deliveries: unsent.length }, 'could not give back unsent webhook leases; they lapse'));
      }
      for (const l of unsent) l.done();
      await Promise.all([...leased]);
    },
    size: () => leased.size,
  };
}
