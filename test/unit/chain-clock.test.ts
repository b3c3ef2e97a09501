import type { PublicClient } from 'viem';
import { describe, expect, it } from 'vitest';
import { createChainClock } from '../../src/modules/chains/clock.js';

/** A node whose latest block carries `chainSec`, answering after the test lets it. */
function node(chainSec: () => bigint, fail = false) {
  let calls = 0;
  const client = { getBlock: async () => { calls++; if (fail) throw new Error('unreachable'); return { timestamp: chainSec() }; } } as unknown as PublicClient;
  return { client, calls: () => calls };
}

describe('chain clock', () => {
  it('is the wall clock until a first look, then the wall clock plus the offset the latest block showed', async () => {
    let wall = 1_000_000_000_000;
    const n = node(() => 1_000_000_600n); // the chain runs 600 s ahead
    const clock = createChainClock(n.client, () => wall);
    expect(clock.now().getTime()).toBe(wall); // first read starts a look in the background
    await clock.refresh();
    expect(clock.now().getTime()).toBe(wall + 600_000);
    wall += 10_000;
    expect(clock.now().getTime()).toBe(wall + 600_000);
  });

  it('asks the node again only after 30 s, and a node that fails leaves the last offset in place', async () => {
    let wall = 2_000_000_000_000;
    let fail = false;
    let calls = 0;
    const client = { getBlock: async () => { calls++; if (fail) throw new Error('down'); return { timestamp: 2_000_000_120n }; } } as unknown as PublicClient;
    const clock = createChainClock(client, () => wall);
    await clock.refresh();
    expect(calls).toBe(1);
    clock.now();
    wall += 29_000;
    clock.now();
    expect(calls).toBe(1);
    fail = true;
    wall += 2_000;
    expect(clock.now().getTime()).toBe(wall + 120_000);
    await new Promise((r) => setImmediate(r));
    expect(calls).toBe(2);
    expect(clock.now().getTime()).toBe(wall + 120_000);
    expect(calls).toBe(2); // the failure counts as a look: no retry storm
  });

  it('observe() takes a block timestamp seen elsewhere (indexer, workers) without an RPC', () => {
    const wall = 3_000_000_000_000;
    const n = node(() => 0n);
    const clock = createChainClock(n.client, () => wall);
    clock.observe(2_999_999_990n);
    expect(clock.now().getTime()).toBe(wall - 10_000);
    expect(n.calls()).toBe(0);
  });
});
