import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startAnvil, type AnvilHandle } from '../../src/chain/anvil.js';
import type { Logger } from '../../src/lib/logger.js';
import { watchHeads } from '../../src/modules/indexer/head-watch.js';
import { createLoops } from '../../src/modules/indexer/loop.js';
import { createHarness, type Harness } from '../helpers/harness.js';

let anvil: AnvilHandle;
let h: Harness;
beforeAll(async () => {
  // Slow interval mining: the heads this test sees are the ones it mines.
  anvil = await startAnvil({ port: 0, chainId: 84532, blockTime: 3600, accounts: 1 });
  h = await createHarness();
});
afterAll(async () => {
  await anvil?.stop();
  await h?.close();
});

const rpc = (method: string, params: unknown[] = []) =>
  fetch(anvil.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
const logger = () => ({ warn: vi.fn(), info: vi.fn(), error: vi.fn(), debug: vi.fn() }) as unknown as Logger & { warn: ReturnType<typeof vi.fn> };
const until = async (done: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 20));
  }
};
const freePort = () => new Promise<number>((resolve) => {
  const s = createServer().listen(0, '127.0.0.1', () => {
    const { port } = s.address() as { port: number };
    s.close(() => resolve(port));
  });
});

describe('new heads by subscription (eth_subscribe over WebSocket) wake the indexer', () => {
  it('calls back once per mined block with the chain id, and nothing after it is stopped', async () => {
    const heads: number[] = [];
    const stop = watchHeads([{ chainId: 84532, wsUrl: anvil.rpcUrl.replace(/^http/, 'ws') }, { chainId: 8453 }], (id) => heads.push(id), logger());
    // Mine until the subscription is open (its first head), then exactly two blocks more: exactly two more heads.
    await until(() => {
      if (heads.length === 0) void rpc('anvil_mine', ['0x1']);
      return heads.length > 0;
    });
    await new Promise((r) => setTimeout(r, 300)); // heads of blocks mined while the first was on its way
    const seen = heads.length;
    for (let i = 0; i < 2; i++) await rpc('anvil_mine', ['0x1']);
    await until(() => heads.length >= seen + 2);
    await new Promise((r) => setTimeout(r, 300));
    expect(heads).toHaveLength(seen + 2);
    expect(new Set(heads)).toEqual(new Set([84532])); // the chain without RPC_WS_URL is not watched

    stop();
    await new Promise((r) => setTimeout(r, 200));
    const atStop = heads.length;
    await rpc('anvil_mine', ['0x2']);
    await new Promise((r) => setTimeout(r, 500));
    expect(heads).toHaveLength(atStop);
  });

  it('a node that does not answer on WebSocket is a single warning, never a throw; the poll carries on', async () => {
    const log = logger();
    const heads: number[] = [];
    const stop = watchHeads([{ chainId: 84532, wsUrl: `ws://127.0.0.1:${await freePort()}` }], (id) => heads.push(id), log);
    await until(() => log.warn.mock.calls.length > 0);
    expect(log.warn).toHaveBeenCalledTimes(1);
    expect(JSON.stringify(log.warn.mock.calls[0])).toContain('the indexer polls until it is back');
    stop();
    expect(heads).toEqual([]);
  });

  it('follows the node again after it went away and came back (a new socket, a new subscription)', async () => {
    const port = await freePort();
    let node = await startAnvil({ port, chainId: 84532, blockTime: 3600, accounts: 1 });
    const log = logger();
    const heads: number[] = [];
    const stop = watchHeads([{ chainId: 84532, wsUrl: `ws://127.0.0.1:${port}` }], (id) => heads.push(id), log);
    const mine = () => fetch(node.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_mine', params: ['0x1'] }) });
    try {
      await until(() => {
        if (heads.length === 0) void mine().catch(() => {});
        return heads.length > 0;
      });
      await node.stop();
      await until(() => log.warn.mock.calls.length === 1);
      const before = heads.length;
      node = await startAnvil({ port, chainId: 84532, blockTime: 3600, accounts: 1 });
      // The watcher re-subscribes within RESUBSCRIBE_MS; mine (every 200 ms) until a head arrives through the new socket.
      let last = 0;
      await until(() => {
        if (Date.now() - last > 200) {
          last = Date.now();
          void mine().catch(() => {}); // the node may still be starting
        }
        return heads.length > before;
      }, 15_000);
      expect(log.warn).toHaveBeenCalledTimes(1); // one line for the outage, not one per attempt
    } finally {
      stop();
      await node.stop();
    }
  });

  it('a head that comes while a tick is in flight makes the loop tick again as soon as that tick ends, not at the next poll', async () => {
    const ticks: number[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const loops = createLoops({
      db: h.db, config: h.config, chains: h.services.chains, logger: logger(), clock: h.services.clock,
      pollMs: 600_000, // without the head the loop would not tick again during this test
      tick: async () => {
        ticks.push(Date.now());
        if (ticks.length === 1) await gate; // the first tick is still reading when the head arrives
        return { caughtUp: true };
      },
    });
    const [chainId] = h.services.chains.list().map((c) => c.chainId);
    loops.start([chainId!]);
    try {
      await until(() => ticks.length === 1);
      loops.poke(chainId!);
      expect(ticks).toHaveLength(1);
      release();
      await until(() => ticks.length === 2);
      await new Promise((r) => setTimeout(r, 300));
      expect(ticks).toHaveLength(2); // one more tick for the head, then the poll interval again
    } finally {
      await loops.stop();
    }
  });

  it('a head makes the chain\'s loop tick at once rather than at its next poll, but not while it backs off after errors', async () => {
    const ticks: number[] = [];
    let fail = false;
    const loops = createLoops({
      db: h.db, config: h.config, chains: h.services.chains, logger: logger(), clock: h.services.clock,
      pollMs: 600_000, // without a head the loop would not tick again during this test
      tick: async () => {
        ticks.push(Date.now());
        if (fail) throw new Error('node away');
        return { caughtUp: true };
      },
    });
    const [chainId] = h.services.chains.list().map((c) => c.chainId);
    loops.start([chainId!]);
    try {
      await until(() => ticks.length === 1);
      loops.poke(chainId!);
      await until(() => ticks.length === 2);

      fail = true;
      loops.poke(chainId!);
      await until(() => ticks.length === 3); // this tick fails: the loop now backs off
      loops.poke(chainId!);
      await new Promise((r) => setTimeout(r, 300));
      expect(ticks).toHaveLength(3);
    } finally {
      await loops.stop();
    }
  });
});
