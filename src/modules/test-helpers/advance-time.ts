import type { PublicClient } from 'viem';
import { AppError } from '../../lib/errors.js';
import type { ChainRuntime } from '../chains/service.js';

export const MAX_ADVANCE_SECONDS = 31_536_000;

/**
 * The devnet chain is shared by every platform of the deployment: each platform may move it a few times a
 * minute, and all of them together a bounded number of times (each call is two RPCs and a mined block).
 */
export const PER_PLATFORM = { perSecond: 10 / 60, burst: 10 };
export const IN_TOTAL = { perSecond: 1, burst: 30 };

type Policy = typeof PER_PLATFORM;
export type Limiter = { take(key: string, policy: Policy): { allowed: boolean; retryAfterSeconds: number } };
export type TestClockDeps = { limiter: Limiter; chainOf(platformId: string): Promise<ChainRuntime> };

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

type Rpc = { request(a: { method: string; params?: unknown[] }): Promise<unknown> };
const rpc = (client: PublicClient) => client as unknown as Rpc;

/** The node not answering is a 503 (the devnet chain is down or restarting), not a masked 500. */
async function node<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch {
    throw new AppError('service_unavailable', 'The devnet chain does not answer; retry shortly.');
  }
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

/**
 * POST /v1/test_helpers/advance_time (devnet only): anvil's evm_increaseTime then evm_mine, so the new head
 * carries the moved time. Everything that decides by the chain's clock follows from that block: the indexer's
 * cursor time (order expiry, authorization deadlines), the latest block (settlement batches, the router's
 * releaseAfter), and the service's chain clock, told the new offset here.
 */
export async function advanceTime(deps: TestClockDeps, platformId: string, seconds: number) {
  take(deps, platformId);
  const chain = await deps.chainOf(platformId);
  await node(() => rpc(chain.publicClient).request({ method: 'evm_increaseTime', params: [seconds] }));
  await node(() => rpc(chain.publicClient).request({ method: 'evm_mine', params: [] }));
  const clock = await readClock(chain.publicClient);
  chain.clock.observe(BigInt(clock.chain_time));
  return { ...clock, advanced_by: seconds };
}
