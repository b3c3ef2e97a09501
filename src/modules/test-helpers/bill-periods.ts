import type { PublicClient } from 'viem';
import { AppError } from '../../lib/errors.js';
import type { ChainRuntime } from '../chains/service.js';

/**
 * What a move of the test clock drives between its steps, bound in services.ts: the indexer (one pass), the
 * subscription scheduler on the indexed chain time, the operator sender (a pass now), and the platform's billing.
 */
export type ClockPipeline = {
  index(chainId: number): Promise<unknown>;
  chargeDue(chainId: number): Promise<unknown>;
  send(chainId: number): Promise<unknown>;
  check(platformId: string, to: number): Promise<void>;
  billing(platformId: string): Promise<{ due: number | null; inFlight: boolean }>;
};

/** Rounds (mine to depth, index, schedule, send) one step may take before the move stops with a 503. */
const SETTLE_ROUNDS = 40;
/** A pass of a sender loop running in this process is asked for, not run beside it: this long between rounds then. */
const ROUND_PAUSE_MS = 100;

type Rpc = { request(a: { method: string; params?: unknown[] }): Promise<unknown> };
const rpc = (client: PublicClient) => client as unknown as Rpc;

/** The node not answering is a 503 (the devnet chain is down or restarting), not a masked 500. */
export async function node<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch {
    throw new AppError('service_unavailable', 'The devnet chain does not answer; retry shortly.');
  }
}

export const headTime = async (client: PublicClient) => Number((await node(() => client.getBlock({ blockTag: 'latest' }))).timestamp);

/** Chain time forward to `at` (never back) and a block mined carrying it; the service's chain clock told. */
export async function moveTo(chain: ChainRuntime, at: number): Promise<void> {
  const now = await headTime(chain.publicClient);
  if (at > now) await node(() => rpc(chain.publicClient).request({ method: 'evm_increaseTime', params: [at - now] }));
  await node(() => rpc(chain.publicClient).request({ method: 'evm_mine', params: [] }));
  chain.clock.observe(BigInt(await headTime(chain.publicClient)));
}

/**
 * One step's charges through the whole pipeline, as the workers would run it: blocks to the confirmation depth, the
 * indexer, the scheduler (charges due at the indexed chain time queued), the operator sender; again until none of the
 * platform's charges is in flight and none is due at or before `at` — each confirmed (order.confirmed, the
 * subscription's next period) or failed (order.failed, past_due and its retry). 503 when the devnet does not get there.
 */
export async function settleStep(p: ClockPipeline, chain: ChainRuntime, platformId: string, at: number): Promise<void> {
  for (let round = 0; round < SETTLE_ROUNDS; round++) {
    await node(() => rpc(chain.publicClient).request({ method: 'anvil_mine', params: [`0x${Math.max(1, chain.confirmations).toString(16)}`] }));
    chain.clock.observe(BigInt(await headTime(chain.publicClient)));
    await p.index(chain.chainId);
    await p.chargeDue(chain.chainId);
    await p.send(chain.chainId);
    const b = await p.billing(platformId);
    if (!b.inFlight && (b.due === null || b.due > at)) return;
    if (round > 1) await new Promise((r) => setTimeout(r, ROUND_PAUSE_MS));
  }
  throw new AppError('service_unavailable', `The devnet did not process the subscription charges due at ${new Date(at * 1000).toISOString()}; the clock stopped there. Retry the rest of the move shortly.`);
}
