import type { PublicClient } from 'viem';

/** How old the last look at the chain's clock may be before the next read asks the node again. */
const REFRESH_AFTER_MS = 30_000;

/**
 * The chain's clock without waiting on an RPC: the wall clock plus the offset last seen between the
 * latest block's timestamp and the wall clock. Deadlines that the router checks (PayOrder, RefundOrder)
 * are measured on it, so an order signed for 60 s gets 60 s of chain time even where the chain's clock
 * runs ahead of the wall (anvil with evm_increaseTime) or behind it. A read whose last look is older than
 * 30 s refreshes it in the background; until a first look succeeds the offset is 0 (the wall clock).
 */
export function createChainClock(client: PublicClient, wallNow: () => number = Date.now) {
  let offsetMs = 0;
  let lookedAt = -Infinity;
  let looking = false;

  function observe(blockTimestampSec: bigint) {
    offsetMs = Number(blockTimestampSec) * 1000 - wallNow();
    lookedAt = wallNow();
  }

  async function refresh(): Promise<void> {
    if (looking) return;
    looking = true;
    try {
      observe((await client.getBlock({ blockTag: 'latest' })).timestamp);
    } catch {
      lookedAt = wallNow(); // an unreachable node is asked again after REFRESH_AFTER_MS, not on every read
    } finally {
      looking = false;
    }
  }

  return {
    observe,
    refresh,
    now(): Date {
      if (wallNow() - lookedAt > REFRESH_AFTER_MS) void refresh();
      return new Date(wallNow() + offsetMs);
    },
  };
}

export type ChainClock = ReturnType<typeof createChainClock>;
