import type { PublicClient } from 'viem';
import { AppError } from '../../lib/errors.js';
import type { ChainRuntime } from '../chains/service.js';
import { headTime, moveTo, node, settleStep, type ClockPipeline } from './bill-periods.js';

export const MAX_ADVANCE_SECONDS = 31_536_000;

/**
 * The devnet chain is shared by every platform of the deployment: each platform may move it a few times a
 * minute, and all of them together a bounded number of times (each call mines blocks and may drive charges).
 */
export const PER_PLATFORM = { perSecond: 10 / 60, burst: 10 };
export const IN_TOTAL = { perSecond: 1, burst: 30 };

type Policy = typeof PER_PLATFORM;
export type Limiter = { take(key: string, policy: Policy): { allowed: boolean; retryAfterSeconds: number } };
export type TestClockDeps = { limiter: Limiter; chainOf(platformId: string): Promise<ChainRuntime>; pipeline: ClockPipeline };

/** Token buckets in memory (per instance), at most `maxKeys` of them (the oldest go first). */
export function createLimiter(now: () => number = Date.now, maxKeys = 10_000): Limiter {
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    take(key, policy) {
      const t = now();
      const b = buckets.get(key) ?? { tokens: policy.burst, at: t };
      b.tokens = Math.min(policy.burst, b.tokens + ((t - b.at) / 1000) * policy.perSecond);
      b.at = t;
      buckets.delete(key);
      if (buckets.size >= maxKeys) buckets.delete(buckets.keys().next().value!);
      buckets.set(key, b);
      if (b.tokens < 1) return { allowed: false, retryAfterSeconds: Math.ceil((1 - b.tokens) / policy.perSecond) };
      b.tokens -= 1;
      return { allowed: true, retryAfterSeconds: 0 };
    },
  };
}

export async function readClock(client: PublicClient) {
  const block = await node(() => client.getBlock({ blockTag: 'latest' }));
  return { chain_time: Number(block.timestamp), block_number: Number(block.number) };
}

function take(deps: TestClockDeps, platformId: string) {
  for (const [key, policy] of [[`test_clock:${platformId}`, PER_PLATFORM], ['test_clock:*', IN_TOTAL]] as const) {
    const d = deps.limiter.take(key, policy);
    if (!d.allowed) throw new AppError('rate_limited', `The devnet's clock may be moved at most ${policy.burst} times in a row (retry in ${d.retryAfterSeconds} s).`);
  }
}

/** A guard only: the bound of the move (checkClockMove) keeps real moves far below (a period's charge and three retries each). */
const MAX_STEPS = 1_000;

/** Moves of one chain run one after the other in this process: another platform's move must not jump over a step. */
const queues = new Map<number, Promise<unknown>>();
function serialized<T>(chainId: number, fn: () => Promise<T>): Promise<T> {
  const run = (queues.get(chainId) ?? Promise.resolve()).then(fn, fn);
  queues.set(chainId, run.catch(() => undefined));
  return run;
}

/**
 * POST /v1/test_helpers/advance_time (devnet only). Like a Stripe test clock, the move bills every period it passes:
 * it steps chain time to each moment one of the platform's subscriptions is due (a period's start or a dunning
 * retry), in order, and drives that charge through the pipeline (settleStep) before the next step, so each period
 * gets its own order and events — or its failure and dunning — exactly as a real charge. Then to the target. A move
 * that would pass too many periods is refused first (subscriptions/test-clock.ts), nothing moved. Everything else
 * that decides by the chain's clock follows from the blocks: order expiry, authorization deadlines, settlements.
 */
export async function advanceTime(deps: TestClockDeps, platformId: string, seconds: number) {
  take(deps, platformId);
  const chain = await deps.chainOf(platformId);
  return serialized(chain.chainId, async () => {
    const from = await headTime(chain.publicClient);
    const target = from + seconds;
    await deps.pipeline.check(platformId, target);
    let at = from;
    for (let step = 0; step < MAX_STEPS; step++) {
      const b = await deps.pipeline.billing(platformId);
      const due = b.inFlight ? at : b.due;
      if (due === null || due > target) break;
      at = Math.max(at, due);
      await moveTo(chain, at);
      await settleStep(deps.pipeline, chain, platformId, at);
    }
    await moveTo(chain, target);
    const clock = await readClock(chain.publicClient);
    return { ...clock, advanced_by: clock.chain_time - from };
  });
}
