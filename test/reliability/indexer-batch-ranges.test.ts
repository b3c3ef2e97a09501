/** Range sizing by log density (issue 20): a backlog of any depth is read a few thousand logs at a time. */
import { describe, expect, it } from 'vitest';
import { MAX_RANGE, nextRange, TARGET_LOGS } from '../../src/modules/indexer/fetch-range.js';

describe('the next eth_getLogs range', () => {
  it('doubles over empty blocks, up to MAX_RANGE', () => {
    expect(nextRange(4n, 4n, 0)).toBe(8n);
    expect(nextRange(1_500n, 1_500n, 0)).toBe(MAX_RANGE);
    expect(nextRange(MAX_RANGE, MAX_RANGE, 0)).toBe(MAX_RANGE);
  });

  it('shrinks to about TARGET_LOGS after a dense read, never below one block', () => {
    expect(nextRange(32n, 32n, 32 * 1_000)).toBe(BigInt(TARGET_LOGS / 1_000)); // 1,000 logs a block → 4 blocks
    expect(nextRange(4n, 4n, 4 * 100_000)).toBe(1n); // a block denser than the target is still read whole
  });

  it('grows at most ×2 even when the density would allow more, and follows the span actually read', () => {
    expect(nextRange(10n, 10n, 10)).toBe(20n);
    // Capped by the target block near the head: 2 blocks read with 2,000 logs → 4 blocks, not 2 × current.
    expect(nextRange(100n, 2n, 2_000)).toBe(4n);
  });

  it('keeps every range within memory: logs per range stay near TARGET_LOGS for any steady density', () => {
    for (const perBlock of [1, 7, 350, 1_000, 3_999]) {
      let range = 4n;
      for (let i = 0; i < 30; i++) range = nextRange(range, range, Number(range) * perBlock);
      expect(Number(range) * perBlock).toBeLessThanOrEqual(Math.max(TARGET_LOGS, perBlock));
      expect(Number(range) * perBlock * 2).toBeGreaterThan(Math.min(TARGET_LOGS, Number(MAX_RANGE) * perBlock) / 2);
    }
  });
});
