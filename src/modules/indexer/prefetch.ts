import type { ChainRuntime } from '../chains/service.js';
import { readRange, type RangeRead, type RangeState } from './fetch-range.js';

const upTo = (from: bigint, range: bigint, target: bigint) => (from + range - 1n < target ? from + range - 1n : target);

/**
 * Ranges read ahead per chain while the current one is applied. Two: a read that takes longer than an apply
 * (a dense range from a slow provider, or one that is refused as too large and read again smaller) is then
 * still ahead of the applier. Memory: at most this many ranges plus the one being applied, each bounded by
 * TARGET_LOGS (and by the response size limit).
 */
export const READ_AHEAD = 2;

type Ahead = { from: bigint; to: bigint; read: Promise<RangeRead | null> };

/**
 * Reads the next ranges of a chain while the current one is being applied, so RPC and database time overlap
 * during a catch-up. A range read ahead is used only by the step that starts exactly where it starts, and
 * only if it ends at or below that step's target; it was checked against the canonical hashes when read, and
 * the cursor check of the step after it (the hash of its last block) covers a reorg in between, as for a
 * range read just before applying it. The ranges after it are planned from the size known when they start
 * (a read that ends short of its plan, shrunk to a provider's limit, leaves a gap: the reads after it are
 * dropped and read again). A failed read ahead is dropped and the step reads again itself (and reports that
 * error, if it recurs).
 */
export function createPrefetcher(depth = READ_AHEAD, watched?: (chainId: number) => Promise<string[]>) {
  const queues = new Map<number, Ahead[]>();
  // The deposit addresses are read when the range is: an address handed out later cannot have been paid in blocks
  // already at confirmation depth before it existed (docs/deposits.md).
  const read = async (rt: ChainRuntime, s: RangeState, from: bigint, to: bigint) => readRange(rt, s, from, to, watched ? await watched(rt.chainId) : []);
  return {
    /** The read of [from, ≤ wanted]: the one read ahead when it matches, else a fresh one (and the queue is dropped). */
    async take(rt: ChainRuntime, s: RangeState, from: bigint, target: bigint): Promise<RangeRead> {
      const q = queues.get(rt.chainId) ?? [];
      const a = q.shift();
      if (a && a.from === from) {
        const read = await a.read;
        if (read && read.to <= target) {
          if (read.to !== a.to) q.length = 0; // shrunk: the reads planned after it start past its end
          return read;
        }
      }
      q.length = 0;
      return read(rt, s, from, upTo(from, s.range, target));
    },
    /** Keeps `depth` ranges after block `after` being read, up to `target`, unless caught up. */
    ahead(rt: ChainRuntime, s: RangeState, after: bigint, target: bigint) {
      const q = queues.get(rt.chainId) ?? [];
      queues.set(rt.chainId, q);
      if (q.length > 0 && q[0]!.from !== after + 1n) q.length = 0;
      let last = q.at(-1)?.to ?? after;
      while (q.length < depth && last < target) {
        const from = last + 1n;
        const to = upTo(from, s.range, target);
        q.push({ from, to, read: read(rt, s, from, to).catch(() => null) });
        last = to;
      }
    },
  };
}
