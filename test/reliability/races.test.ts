import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { createHarness, type Harness } from '../helpers/harness.js';
import { fakeChain, merchant } from '../helpers/factories.js';

/**
 * Races at the API: many identical requests at once, and different requests competing for one unique
 * value. Invitation completion races and refund races are proven in test/api/invitations.test.ts and
 * test/api/refunds.test.ts; the 20-way idempotency race in test/api/idempotency.test.ts.
 */
let h: Harness;
let P: Awaited<ReturnType<Harness['platform']>>;
let m: { external_id: string };

beforeAll(async () => {
  const chain = fakeChain();
  h = await createHarness({ chains: chain.chains, config: chain.config });
  P = await h.platform();
  m = await merchant(h, P.secretKey);
});
afterAll(() => h?.close());

const orderBody = (order_no: string) => ({ merchant_id: m.external_id, order_no, chain_id: 84532, token: 'USDC', amount: '10.00' });
const ordersWith = (orderNo: string) => h.db.selectFrom('orders').selectAll().where('platform_id', '=', P.platformId).where('order_no', '=', orderNo).execute();

describe('one Idempotency-Key, 50 parallel POSTs', () => {
  it('creates exactly one order; every 201 is that order, the rest are replays or "in use"', async () => {
    const res = await Promise.all(Array.from({ length: 50 }, () => h.request('POST', '/v1/orders', { key: P.secretKey, idem: 'race-50', body: orderBody('race-50') })));
    const created = res.filter((r) => r.status === 201);
    const inUse = res.filter((r) => r.status === 409);
    expect(created.length + inUse.length).toBe(50);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const r of inUse) expect(r.body.error.code).toBe('idempotency_key_in_use');
    expect(new Set(created.map((r) => r.body.id)).size).toBe(1);
    expect(created.filter((r) => r.headers.get('idempotent-replayed') !== 'true')).toHaveLength(1);
    expect(await ordersWith('race-50')).toHaveLength(1);
    // Afterwards every retry replays the same order.
    const again = await h.request('POST', '/v1/orders', { key: P.secretKey, idem: 'race-50', body: orderBody('race-50') });
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(created[0]!.body.id);
    const row = await h.db.selectFrom('idempotency_keys').selectAll().where('key', '=', 'race-50').executeTakeFirstOrThrow();
    expect(row.status).toBe(201);
    expect(row.locked_at).toBeNull();
  });

  it('does the same for checkout sessions (one session, one order)', async () => {
    const body = { ...orderBody('race-cs'), expires_in_seconds: 600 };
    const res = await Promise.all(Array.from({ length: 50 }, () => h.request('POST', '/v1/checkout/sessions', { key: P.secretKey, idem: 'race-cs', body })));
    const created = res.filter((r) => r.status === 201);
    expect(res.every((r) => r.status === 201 || r.body.error.code === 'idempotency_key_in_use')).toBe(true);
    expect(new Set(created.map((r) => r.body.id)).size).toBe(1);
    expect(await ordersWith('race-cs')).toHaveLength(1);
    expect(await h.db.selectFrom('checkout_sessions').select('id').where('platform_id', '=', P.platformId).execute()).toHaveLength(1);
  });
});

describe('different keys competing for one unique value', () => {
  it('two keys, one order_no, at once: one 201 and one 409 conflict, one order', async () => {
    for (let round = 0; round < 10; round++) {
      const no = `dup-${round}`;
      const [a, b] = await Promise.all([
        h.request('POST', '/v1/orders', { key: P.secretKey, idem: `${no}-a`, body: orderBody(no) }),
        h.request('POST', '/v1/orders', { key: P.secretKey, idem: `${no}-b`, body: orderBody(no) }),
      ]);
      expect([a.status, b.status].sort()).toEqual([201, 409]);
      expect([a, b].find((r) => r.status === 409)!.body.error).toMatchObject({ code: 'conflict', param: 'order_no' });
      expect(await ordersWith(no)).toHaveLength(1);
    }
  });

  it('ten keys, one order_no, across orders and checkout sessions at once: exactly one wins', async () => {
    const res = await Promise.all(Array.from({ length: 10 }, (_, i) =>
      h.request('POST', i % 2 ? '/v1/orders' : '/v1/checkout/sessions', { key: P.secretKey, idem: `mixed-${i}`, body: orderBody('mixed') })));
    expect(res.filter((r) => r.status === 201)).toHaveLength(1);
    expect(res.filter((r) => r.status === 409 && r.body.error.code === 'conflict')).toHaveLength(9);
    expect(await ordersWith('mixed')).toHaveLength(1);
  });

  it('ten keys, one merchant external_id at once: one merchant', async () => {
    const body = { external_id: 'race-merchant', name: 'Racer', merchant_wallet: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC', chain_id: 84532 };
    const res = await Promise.all(Array.from({ length: 10 }, (_, i) => h.request('POST', '/v1/onboarding/merchants', { key: P.secretKey, idem: `m-${i}`, body })));
    expect(res.filter((r) => r.status === 201)).toHaveLength(1);
    expect(res.filter((r) => r.status === 409)).toHaveLength(9);
    expect(await h.db.selectFrom('merchants').select('id').where('external_id', '=', 'race-merchant').execute()).toHaveLength(1);
  });

  it('twenty webhook endpoints registered at once never exceed the per-platform cap', async () => {
    const p = await h.platform();
    const res = await Promise.all(Array.from({ length: 20 }, (_, i) =>
      h.request('POST', '/v1/webhooks/endpoints', { key: p.secretKey, body: { url: `http://127.0.0.1:9/h${i}`, subscribed_events: ['*'] } })));
    expect(res.filter((r) => r.status === 201)).toHaveLength(16);
    expect(res.filter((r) => r.status === 409)).toHaveLength(4);
    expect(await h.db.selectFrom('webhook_endpoints').select('id').where('platform_id', '=', p.platformId).execute()).toHaveLength(16);
  });

  it('a key revoked while requests are in flight stops working for every request after the revocation', async () => {
    const rolled = await h.request('POST', '/v1/developers/keys', { cookie: P.cookie });
    const key = rolled.body.key as string;
    const before = await Promise.all(Array.from({ length: 10 }, () => h.request('GET', '/v1/orders?limit=1', { key })));
    expect(before.every((r) => r.status === 200)).toBe(true);
    expect((await h.request('POST', `/v1/developers/keys/${rolled.body.id}/revoke`, { cookie: P.cookie })).status).toBe(200);
    const after = await Promise.all(Array.from({ length: 10 }, () => h.request('GET', '/v1/orders?limit=1', { key })));
    expect(after.every((r) => r.status === 401)).toBe(true);
  });

  it('a revoked key this instance remembers creates no order, however many requests race the revocation', async () => {
    const rolled = await h.request('POST', '/v1/developers/keys', { cookie: P.cookie });
    const key = rolled.body.key as string;
    // Orders with this key: the instance now remembers both the key and the merchant (one statement per order).
    const warm = await Promise.all(Array.from({ length: 8 }, (_, i) => h.request('POST', '/v1/orders', { key, body: orderBody(`race-warm-${i}`) })));
    expect(warm.every((r) => r.status === 201)).toBe(true);
    const during = Array.from({ length: 16 }, (_, i) => h.request('POST', '/v1/orders', { key, body: orderBody(`race-during-${i}`) }));
    const revoked = await h.request('POST', `/v1/developers/keys/${rolled.body.id}/revoke`, { cookie: P.cookie });
    expect(revoked.status).toBe(200);
    // In flight while the revocation commits: each either wrote its order or was refused, nothing else.
    expect((await Promise.all(during)).map((r) => r.status).filter((s) => s !== 201 && s !== 401)).toEqual([]);
    const after = await Promise.all(Array.from({ length: 16 }, (_, i) => h.request('POST', '/v1/orders', { key, body: orderBody(`race-after-${i}`) })));
    expect(after.every((r) => r.status === 401)).toBe(true);
    expect(await h.db.selectFrom('orders').select('id').where('order_no', 'like', 'race-after-%').execute()).toHaveLength(0);
  });
});

describe('the relayer\'s day refused by many relays at once', () => {
  it('raises its alert exactly once, even when the refusals share one clock tick (PGlite\'s now() is per millisecond)', async () => {
    const { relayRepo } = await import('../../src/modules/relay/repo.js');
    const day = '2031-03-04';
    // The day's row exists already (relays reserved on it), so each refusal is a quick update, many to a millisecond.
    await sql`insert into relayer_budget_days (chain_id, day, reserved_wei) values (84532, ${day}::date, 900)`.execute(h.db);
    const firsts = await Promise.all(Array.from({ length: 200 }, (_, i) => relayRepo.budgetRefused(h.db, 84532, day, 1000n + BigInt(i))));
    expect(firsts.filter(Boolean)).toHaveLength(1);
    const again = await relayRepo.budgetRefused(h.db, 84532, day, 7n);
    expect(again).toBe(false);
    const row = (await sql<{ refused: string; alerted: boolean }>`select refused_wei::text as refused, alerted_at is not null as alerted from relayer_budget_days where day = ${day}::date`.execute(h.db)).rows[0]!;
    expect(row).toEqual({ refused: '7', alerted: true }); // the latest refusal is what the session read compares to
  });
});
