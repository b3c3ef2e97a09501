import type { ChainRuntime } from '../chains/service.js';
import { readRange, type RangeRead, type RangeState } from './fetch-range.js';

const upTo = (from: bigint, range: bigint, target: bigint) => (from + range - 1n < target ? from + range - 1n : target);

/**
 * Reads the next range of a chain while the current one is being applied, so RPC and database time overlap
 * during a catch-up. At most one range is read ahead per chain (memory: two ranges). A range read ahead is
 * used only by the step that starts exactly where it starts, and only if it ends at or below that step's
 * target; it was checked against the canonical hashes when read, and the cursor check of the step after
 * it (the hash of its last block) covers a reorg in between, as for a range read just before applying it.
 * A failed read ahead is dropped and the step reads again itself (and reports that error, if it recurs).
 */
export function createPrefetcher() {
  const ahead = new Map<number, { from: bigint; read: Promise<RangeRead | null> }>();
  return {
    /** The read of [from, ≤ wanted]: the one read ahead when it matches, else a fresh one. */
    async take(rt: ChainRuntime, s: RangeState, from: bigint, target: bigint): Promise<RangeRead> {
      const a = ahead.get(rt.chainId);
      ahead.delete(rt.chainId);
      if (a && a.from === from) {
        const read = await a.read;
        if (read && read.to <= target) return read;
      }
      return readRange(rt, s, from, upTo(from, s.range, target));
    },
    /** Starts reading the range after block `after`, up to `target`, unless caught up. */
    ahead(rt: ChainRuntime, s: RangeState, after: bigint, target: bigint) {
      if (after >= target) return;
      const from = after + 1n;
      ahead.set(rt.chainId, { from, read: readRange(rt, s, from, upTo(from, s.range, target)).catch(() => null) });
    },
  };
}
