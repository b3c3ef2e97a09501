/**
 * The indexer's set-based path (issue 20): runs of OrderPaid applied in batches inside the range's
 * transaction. A crash after some batches of a range were written loses and doubles nothing, and a reorg
 * below the depth across batches re-reads the range without applying anything twice.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CURSOR_MARKS, indexerRepo } from '../../src/modules/indexer/repo.js';
import { createIndexer } from '../../src/modules/indexer/service.js';
import { createFlow, payAsBuyer, setupPlatform, type Flow } from '../helpers/flow.js';

const CHAIN = 84532;
let f: Flow;
beforeAll(async () => {
  f = await createFlow({ confirmations: 1 });
}, 120_000);
afterAll(async () => {
  await f?.close();
});

const indexer = (faults?: Parameters<typeof createIndexer>[0]['faults'], afterCommit?: () => void, flow: Flow = f) => {
  const s = flow.h.services;
  return createIndexer({ db: flow.h.db, config: flow.h.config, chains: s.chains, handlers: s.chainEvents, logger: s.logger, metrics: s.metrics, batchSize: 2, faults, afterCommit });
};

async function platformWithOrders(tag: string, n: number, flow: Flow = f) {
  const { p, m } = await setupPlatform(flow.h);
  const ep = await flow.h.request('POST', '/v1/webhooks/endpoints', { key: p.secretKey, body: { url: 'http://127.0.0.1:9/hooks', subscribed_events: ['*'] } });
  expect(ep.status).toBe(201);
  const orders = [];
  for (let i = 0; i < n; i++) {
    const r = await flow.h.request('POST', '/v1/orders', { key: p.secretKey, body: { merchant_id: m.external_id, order_no: `${tag}-${i}`, chain_id: CHAIN, token: 'USDC', amount: `${i + 1}.00` } });
    expect(r.status).toBe(201);
    orders.push(r.body);
  }
  return { p, orders };
}

/** What the outbox and the log table hold for a platform's orders: each must be exactly one per payment. */
async function ledger(platformId: string, onchainIds: string[], flow: Flow = f) {
  const db = flow.h.db;
  const states = await db.selectFrom('orders').select(['id', 'state']).where('platform_id', '=', platformId).execute();
  const events = await db.selectFrom('events').select(['id', 'data']).where('platform_id', '=', platformId).where('type', '=', 'order.confirmed').execute();
  const deliveries = await db.selectFrom('webhook_deliveries').select('event_id').where('platform_id', '=', platformId).execute();
  const logs = await db.selectFrom('chain_logs').select('event_key').where('event_name', '=', 'OrderPaid').where('onchain_id', 'in', onchainIds).execute();
  const perOrder = new Map<string, number>();
  for (const e of events) {
    const id = (typeof e.data === 'string' ? JSON.parse(e.data) : e.data).object.id as string;
    perOrder.set(id, (perOrder.get(id) ?? 0) + 1);
  }
  return { states, events, deliveries, logs, perOrder };
}

describe('the indexer applies OrderPaid in batches', () => {
  it('a crash after some batches of a range were written loses and doubles nothing', async () => {
    const { p, orders } = await platformWithOrders('batch-crash', 6);
    for (const [i, o] of orders.entries()) await payAsBuyer(f.chain, f.chain.buyers[i % 3]!, o);
    await f.chain.mine(2);
    let batches = 0;
    const crashing = indexer({ afterBatch: () => { if (++batches === 2) throw new Error('killed mid-range'); } });
    await expect(crashing.runOnce(CHAIN)).rejects.toThrow('killed mid-range');
    expect(batches).toBe(2); // two batches of the range were written before the crash
    const onchain = orders.map((o) => o.eip712.message.orderId as string);
    let l = await ledger(p.platformId, onchain);
    // Whatever ranges committed before the crashing one are whole; the crashing range left nothing behind.
    const committed = l.logs.length;
    expect(committed).toBeLessThanOrEqual(6 - 3); // at least the two batches (3+ logs) of the crashed range are absent
    expect(l.states.filter((s) => s.state === 'confirmed')).toHaveLength(committed);
    expect(l.events).toHaveLength(committed);
    expect(l.deliveries).toHaveLength(committed);

    const restarted = indexer();
    expect(await restarted.runOnce(CHAIN)).toBe(6 - committed);
    expect(await restarted.runOnce(CHAIN)).toBe(0);
    l = await ledger(p.platformId, onchain);
    expect(l.states.map((s) => s.state)).toEqual(Array(6).fill('confirmed'));
    expect(l.events).toHaveLength(6);
    expect([...l.perOrder.values()]).toEqual(Array(6).fill(1));
    expect(l.deliveries).toHaveLength(6); // one endpoint: one delivery per event
    expect(new Set(l.deliveries.map((d) => d.event_id))).toEqual(new Set(l.events.map((e) => e.id)));
    expect(l.logs).toHaveLength(6);
  });

  it('a reorg below the depth across batches re-reads the range and applies each payment once', async () => {
    const { p, orders } = await platformWithOrders('batch-reorg', 6);
    const [a, b, c, d, e, g] = orders;
    await payAsBuyer(f.chain, f.chain.buyers[0]!, a);
    await payAsBuyer(f.chain, f.chain.buyers[1]!, b);
    await indexer().runOnce(CHAIN);
    const snapshot = await f.chain.anvil.snapshot();
    for (const o of [c, d, e]) await payAsBuyer(f.chain, f.chain.buyers[2]!, o);
    await f.chain.mine(2);
    await indexer().runOnce(CHAIN); // c, d, e applied (two batches), cursor past them
    await f.chain.anvil.revert({ id: snapshot }); // their blocks are gone
    await payAsBuyer(f.chain, f.chain.buyers[2]!, d); // d re-included elsewhere
    await payAsBuyer(f.chain, f.chain.buyers[0]!, g); // g only on the new branch
    await f.chain.mine(12); // the new branch is longer than the old one
    const ix = indexer();
    for (let i = 0; i < 5; i++) await ix.runOnce(CHAIN);
    const alerts = await f.h.db.selectFrom('chain_alerts').select('kind').where('kind', '=', 'reorg_below_depth').execute();
    expect(alerts.length).toBeGreaterThanOrEqual(1);
    const onchain = orders.map((o) => o.eip712.message.orderId as string);
    const l = await ledger(p.platformId, onchain);
    // c and e stay confirmed (the alert is how an operator hears of it); d and g once each, on the new branch.
    expect(l.states.map((s) => s.state)).toEqual(Array(6).fill('confirmed'));
    expect(l.events).toHaveLength(6);
    expect([...l.perOrder.values()]).toEqual(Array(6).fill(1));
    expect(l.deliveries).toHaveLength(6);
    expect(l.logs).toHaveLength(6);
  });

  it('a reorg deeper than the rescan depth reads again from the fork point: the new branch\'s payments are applied', async () => {
    const { p, orders } = await platformWithOrders('deep-reorg', 3);
    const [a, b, c] = orders;
    await payAsBuyer(f.chain, f.chain.buyers[0]!, a);
    await f.chain.mine(2);
    await indexer().runOnce(CHAIN);
    const snapshot = await f.chain.anvil.snapshot();
    const fork = await f.chain.publicClient.getBlockNumber();
    await payAsBuyer(f.chain, f.chain.buyers[1]!, b); // b only on the old branch
    await f.chain.mine(30); // the old branch runs far past the fixed rescan depth (4 blocks at 1 confirmation)
    await indexer().runOnce(CHAIN);
    const before = await f.h.db.selectFrom('chain_cursors').select('last_block').where('chain_id', '=', CHAIN).executeTakeFirstOrThrow();
    expect(BigInt(before.last_block) - fork).toBeGreaterThan(4n);
    await f.chain.anvil.revert({ id: snapshot });
    await payAsBuyer(f.chain, f.chain.buyers[2]!, c); // c only on the new branch, right after the fork
    await f.chain.mine(60); // the new branch is longer than the old one
    const ix = indexer();
    for (let i = 0; i < 5; i++) await ix.runOnce(CHAIN);
    const alert = await f.h.db.selectFrom('chain_alerts').select('detail').where('kind', '=', 'reorg_below_depth').orderBy('id', 'desc').executeTakeFirstOrThrow();
    const detail = (typeof alert.detail === 'string' ? JSON.parse(alert.detail) : alert.detail) as { rescan_from: string | number };
    expect(BigInt(detail.rescan_from)).toBeLessThanOrEqual(fork + 1n); // from the fork, not 4 blocks below the cursor
    const onchain = orders.map((o) => o.eip712.message.orderId as string);
    const l = await ledger(p.platformId, onchain);
    const state = new Map(l.states.map((s) => [s.id, s.state]));
    expect(state.get(a.id)).toBe('confirmed');
    expect(state.get(c.id)).toBe('confirmed'); // the fixed depth would have skipped its block
    expect(state.get(b.id)).toBe('confirmed'); // applied from the old branch; the alert is how an operator hears of it
    expect([...l.perOrder.values()]).toEqual([1, 1, 1]);
  });

  it('remembers the newest CURSOR_MARKS cursor positions per chain, and forgets those above a rewind', async () => {
    const chain = 999_001; // a chain of its own: the marks of CHAIN stay as they are
    for (let b = 1n; b <= BigInt(CURSOR_MARKS) + 44n; b++) await indexerRepo.mark(f.h.db, chain, b, `0x${b.toString(16).padStart(64, '0')}`);
    let marks = await indexerRepo.marksBelow(f.h.db, chain, 10_000n);
    expect(marks).toHaveLength(CURSOR_MARKS);
    expect(marks[0]!.block).toBe(BigInt(CURSOR_MARKS) + 44n);
    expect(marks.at(-1)!.block).toBe(45n);
    await f.h.db.transaction().execute((tx) => indexerRepo.forgetMarksAbove(tx, chain, 100n));
    marks = await indexerRepo.marksBelow(f.h.db, chain, 10_000n);
    expect(marks[0]!.block).toBe(100n);
    expect(marks).toHaveLength(56);
  });

  it('pokes the deliverer (afterCommit) after a committed range that applied logs, never for a range that rolled back or applied nothing', async () => {
    const { orders } = await platformWithOrders('batch-poke', 2);
    for (const [i, o] of orders.entries()) await payAsBuyer(f.chain, f.chain.buyers[i % 3]!, o);
    await f.chain.mine(2);
    let pokes = 0;
    const crashing = indexer({ beforeCommit: () => { throw new Error('killed before commit'); } }, () => pokes++);
    await expect(crashing.runOnce(CHAIN)).rejects.toThrow('killed before commit');
    expect(pokes).toBe(0);
    const ix = indexer(undefined, () => pokes++);
    expect(await ix.runOnce(CHAIN)).toBe(2);
    expect(pokes).toBeGreaterThanOrEqual(1);
    const after = pokes;
    await f.chain.mine(2);
    expect(await ix.runOnce(CHAIN)).toBe(0);
    expect(pokes).toBe(after);
  });
});

describe('at 5 confirmations, with the chain clock moved', () => {
  let g: Flow;
  beforeAll(async () => {
    g = await createFlow({ confirmations: 5 });
  }, 120_000);
  afterAll(async () => {
    await g?.close();
  });

  it('a reorg deeper than the rescan depth (20 blocks) reads again from the fork point; every payment applies once', async () => {
    const { p, orders } = await platformWithOrders('deep-reorg-5', 3, g);
    const [a, b, c] = orders;
    await payAsBuyer(g.chain, g.chain.buyers[0]!, a);
    await g.chain.mine(6); // a is 6 deep: past the 5 confirmations
    await indexer(undefined, undefined, g).runOnce(CHAIN);
    const snapshot = await g.chain.anvil.snapshot();
    const fork = await g.chain.publicClient.getBlockNumber();
    await payAsBuyer(g.chain, g.chain.buyers[1]!, b); // b only on the old branch
    await g.chain.increaseTime(3_600); // an hour of chain time on the old branch
    await g.chain.mine(40);
    await indexer(undefined, undefined, g).runOnce(CHAIN);
    const before = await g.h.db.selectFrom('chain_cursors').select('last_block').where('chain_id', '=', CHAIN).executeTakeFirstOrThrow();
    expect(BigInt(before.last_block) - fork).toBeGreaterThan(20n); // beyond the fixed rescan depth at 5 confirmations
    await g.chain.anvil.revert({ id: snapshot });
    await payAsBuyer(g.chain, g.chain.buyers[2]!, c); // c only on the new branch, right after the fork
    await g.chain.increaseTime(7_200);
    await g.chain.mine(80); // the new branch is longer than the old one
    const ix = indexer(undefined, undefined, g);
    for (let i = 0; i < 5; i++) await ix.runOnce(CHAIN);
    const alert = await g.h.db.selectFrom('chain_alerts').select('detail').where('kind', '=', 'reorg_below_depth').orderBy('id', 'desc').executeTakeFirstOrThrow();
    const detail = (typeof alert.detail === 'string' ? JSON.parse(alert.detail) : alert.detail) as { rescan_from: string | number };
    expect(BigInt(detail.rescan_from)).toBeLessThanOrEqual(fork + 1n); // from the fork, not 20 blocks below the cursor
    const onchain = orders.map((o) => o.eip712.message.orderId as string);
    const l = await ledger(p.platformId, onchain, g);
    const state = new Map(l.states.map((s) => [s.id, s.state]));
    expect([state.get(a.id), state.get(b.id), state.get(c.id)]).toEqual(['confirmed', 'confirmed', 'confirmed']);
    expect([...l.perOrder.values()]).toEqual([1, 1, 1]);
    expect(l.deliveries).toHaveLength(3);
    // c's payment is recorded at its block on the new branch, with that block's time (the chain's clock).
    const cRow = await g.h.db.selectFrom('orders').select(['block_number', 'paid_at']).where('id', '=', c.id).executeTakeFirstOrThrow();
    const cBlock = await g.chain.publicClient.getBlock({ blockNumber: BigInt(cRow.block_number!) });
    expect(new Date(cRow.paid_at!).getTime()).toBe(Number(cBlock.timestamp) * 1000);
  });
});
