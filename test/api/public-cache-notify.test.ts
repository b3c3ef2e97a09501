import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LISTENER_APPLICATION_NAME, openPostgres } from '../../src/db/client.js';
import { manualClock } from '../../src/lib/clock.js';
import { ADMIN_TOKEN, TEST_DB, createHarness, type Harness } from '../helpers/harness.js';
import { WALLETS, fakeChain, merchant } from '../helpers/factories.js';

/**
 * The public session read is cached until the session expires while this instance hears NOTIFY for every
 * change to it (migration 008), and for a second otherwise. These tests change the rows behind the
 * instance's back, as another instance or worker would.
 */
/** This instance's clock: the cache's lifetimes are moved with it, not waited for. */
const clock = manualClock();
let h: Harness;
let p: Awaited<ReturnType<Harness['platform']>>;
let m: { external_id: string; name: string };
let seq = 0;

const until = async (what: string, cond: () => Promise<boolean> | boolean, ms = 5_000) => {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

async function session(on: Harness = h) {
  const res = await on.request('POST', '/v1/checkout/sessions', { key: p.secretKey, body: { merchant_id: m.external_id, order_no: `pcn_${++seq}`, chain_id: 84532, token: 'USDC', amount: '12.00' } });
  expect(res.status).toBe(201);
  return res.body as { id: string; order_id: string; session_token: string };
}
const reader = (on: Harness, token: string) => async () => (await on.request('GET', `/v1/checkout/sessions/${token}`)).body;

/** A write that fires no trigger (so sends no NOTIFY): what a lost notification looks like. */
async function silently(on: Harness, write: (tx: Harness['db']) => Promise<unknown>) {
  await on.db.transaction().execute(async (tx) => {
    await sql`set local session_replication_role = replica`.execute(tx);
    await write(tx as unknown as Harness['db']);
  });
}

beforeAll(async () => {
  h = await createHarness({ ...fakeChain(), clock });
  p = await h.platform({ name: 'Acme Market' });
  m = await merchant(h, p.secretKey, { name: 'Blue Bottle Goods' });
  await until('the LISTEN connection', () => h.services.publicSessions.isNotified());
});
afterAll(async () => {
  await h?.close();
});

describe('public session cache with NOTIFY', () => {
  it('keeps an answer past a second while nothing notifies, and drops it when a change is notified', async () => {
    const s = await session();
    const read = reader(h, s.session_token);
    expect((await read()).payer_address).toBeNull();
    // Without a notification the answer stays (the 1 s lifetime of an unnotified cache would have ended).
    await silently(h, (db) => db.updateTable('checkout_sessions').set({ payer_address: WALLETS.merchant2 }).where('id', '=', s.id).execute());
    clock.advance(1_300);
    expect((await read()).payer_address).toBeNull();
    // The same kind of write with its trigger: every instance hears of it on commit.
    await h.db.updateTable('checkout_sessions').set({ cancel_url: 'https://shop.example/back' }).where('id', '=', s.id).execute();
    await until('the notified change', async () => (await read()).cancel_url === 'https://shop.example/back');
    expect((await read()).payer_address).toBe(WALLETS.merchant2);
  });

  it("an order's state or tx_hash written elsewhere is seen", async () => {
    const s = await session();
    const read = reader(h, s.session_token);
    expect((await read()).order.state).toBe('pending_payment');
    const tx = `0x${'ab'.repeat(32)}`;
    await h.db.updateTable('orders').set({ state: 'failed', tx_hash: tx }).where('id', '=', s.order_id).execute();
    await until('the failed order', async () => (await read()).order.state === 'failed');
    expect((await read()).order.tx_hash).toBe(tx);
  });

  it('a renamed merchant or platform drops every cached answer', async () => {
    const [a, b] = [await session(), await session()];
    expect((await reader(h, a.session_token)()).merchant.name).toBe('Blue Bottle Goods');
    expect((await reader(h, b.session_token)()).platform.name).toBe('Acme Market');
    await h.db.updateTable('merchants').set({ name: 'Blue Bottle Coffee' }).where('external_id', '=', m.external_id).execute();
    await until('the new merchant name', async () => (await reader(h, a.session_token)()).merchant.name === 'Blue Bottle Coffee');
    await h.db.updateTable('platforms').set({ name: 'Acme Bazaar' }).where('id', '=', p.platformId).execute();
    await until('the new platform name', async () => (await reader(h, b.session_token)()).platform.name === 'Acme Bazaar');
    await h.db.updateTable('platforms').set({ name: 'Acme Market' }).where('id', '=', p.platformId).execute();
    await h.db.updateTable('merchants').set({ name: 'Blue Bottle Goods' }).where('external_id', '=', m.external_id).execute();
  });

  it('a transition made by this process shows at the next read', async () => {
    const s = await session();
    const read = reader(h, s.session_token);
    expect((await read()).state).toBe('open');
    await h.db.updateTable('orders').set({ deadline_at: new Date(Date.now() - 1000) }).where('id', '=', s.order_id).execute();
    await h.services.orders.expireDue(84532, new Date());
    expect(await read()).toMatchObject({ state: 'expired', order: { state: 'expired' } });
  });
});

describe.runIf(TEST_DB === 'postgres')('public session cache across instances (PostgreSQL)', () => {
  let other: Harness;
  beforeAll(async () => {
    other = await createHarness({ ...fakeChain(), database: openPostgres((h.database as { url?: string }).url!, 5) });
    await until("the other instance's LISTEN connection", () => other.services.publicSessions.isNotified());
  });
  afterAll(async () => {
    await other?.close();
  });

  it("another instance's change shows at once where the answer is cached", async () => {
    const s = await session();
    const here = reader(h, s.session_token);
    const there = reader(other, s.session_token);
    expect((await here()).order.state).toBe('pending_payment');
    expect((await there()).order.state).toBe('pending_payment');
    // The other instance fails the order (the operator route, then its indexer applies the on-chain
    // cancellation as it would from PayOrderCancelled): this one hears of it.
    const failed = await other.request('POST', `/_/orders/${s.order_id}/fail`, { key: ADMIN_TOKEN, body: { reason: 'fraud review' } });
    expect(failed.status).toBe(202);
    const orderOnchainId = (await there()).order.eip712.message.orderId;
    await other.db.transaction().execute((tx) => other.services.chainEvents.PayOrderCancelled(tx, { chainId: 84532, orderOnchainId, txHash: `0x${'cd'.repeat(32)}`, blockTime: new Date() }));
    await until('the failed order on this instance', async () => (await here()).order.state === 'failed');
    expect((await there()).order.state).toBe('failed');
  });

  it('a dropped LISTEN connection is re-opened, and nothing kept from before it is trusted', async () => {
    const s = await session();
    const read = reader(h, s.session_token);
    expect((await read()).payer_address).toBeNull();
    const backends = async () => (await sql<{ pid: number }>`select pid from pg_stat_activity where datname = current_database() and application_name = ${LISTENER_APPLICATION_NAME}`.execute(h.db)).rows;
    expect((await backends()).length).toBe(2); // one per instance
    await sql`select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and application_name = ${LISTENER_APPLICATION_NAME}`.execute(h.db);
    await until('the listener to notice', () => !h.services.publicSessions.isNotified());
    // A change nobody is told of, made while the connection is down.
    await silently(h, (db) => db.updateTable('checkout_sessions').set({ payer_address: WALLETS.merchant2 }).where('id', '=', s.id).execute());
    await until('the listener to come back', () => h.services.publicSessions.isNotified());
    expect((await read()).payer_address).toBe(WALLETS.merchant2);
    await until('both listeners back', async () => (await backends()).length === 2);
    // And notifications flow again.
    await h.db.updateTable('checkout_sessions').set({ cancel_url: 'https://shop.example/again' }).where('id', '=', s.id).execute();
    await until('the notified change', async () => (await read()).cancel_url === 'https://shop.example/again');
  });
});
