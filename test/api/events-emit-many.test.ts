/**
 * The outbox in bulk (events/emit-many.ts, the indexer's batched path): the rows it writes are those
 * emitEvent writes one at a time: each body stored as given (bigint as a decimal string), matched to its
 * own id and platform, one pending delivery per subscribed endpoint; nothing at all when a row is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emitEvents } from '../../src/modules/events/emit-many.js';
import { createHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

async function endpoint(key: string, subscribed_events: string[]) {
  const r = await h.request('POST', '/v1/webhooks/endpoints', { key, body: { url: 'http://127.0.0.1:9/hooks', subscribed_events } });
  expect(r.status).toBe(201);
  return r.body.id as string;
}
const parse = (d: unknown) => (typeof d === 'string' ? JSON.parse(d) : d);

describe('emitEvents', () => {
  it('stores each body with its own id, platform and type, and one delivery per subscribed endpoint', async () => {
    const [a, b] = [await h.platform(), await h.platform()];
    const all = await endpoint(a.secretKey, ['*']);
    const refunds = await endpoint(a.secretKey, ['refund.completed']);
    const other = await endpoint(b.secretKey, ['order.confirmed']);
    const inputs = Array.from({ length: 7 }, (_, i) => ({
      platformId: i % 2 ? b.platformId : a.platformId,
      type: (i % 3 ? 'order.confirmed' : 'refund.completed') as 'order.confirmed' | 'refund.completed',
      data: { object: { id: `obj_${i}`, amount: 10n ** 18n + BigInt(i), nested: { list: [i, 'x"y', null] }, text: 'é\\n' } },
    }));
    const ids = await h.db.transaction().execute((tx) => emitEvents(tx, inputs));
    expect(new Set(ids).size).toBe(7);
    const rows = await h.db.selectFrom('events').selectAll().where('id', 'in', ids).execute();
    const byId = new Map(rows.map((r) => [r.id, r]));
    ids.forEach((id, i) => {
      const row = byId.get(id)!;
      expect(row.platform_id).toBe(inputs[i]!.platformId);
      expect(row.type).toBe(inputs[i]!.type);
      expect(parse(row.data)).toEqual({ object: { ...inputs[i]!.data.object, amount: (10n ** 18n + BigInt(i)).toString() } });
    });
    const deliveries = await h.db.selectFrom('webhook_deliveries').select(['event_id', 'endpoint_id', 'state']).where('event_id', 'in', ids).execute();
    const expected = ids.flatMap((id, i) => {
      const e = inputs[i]!;
      if (e.platformId === b.platformId) return e.type === 'order.confirmed' ? [`${id} ${other}`] : [];
      return e.type === 'refund.completed' ? [`${id} ${all}`, `${id} ${refunds}`] : [`${id} ${all}`];
    });
    expect(deliveries.map((d) => `${d.event_id} ${d.endpoint_id}`).sort()).toEqual(expected.sort());
    expect(deliveries.every((d) => d.state === 'pending')).toBe(true);
  });

  it('refuses an unknown event type and writes nothing', async () => {
    const p = await h.platform();
    await endpoint(p.secretKey, ['*']);
    const before = await h.db.selectFrom('events').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
    const bad = [{ platformId: p.platformId, type: 'order.confirmed' as const, data: { object: { id: 'ok' } } }, { platformId: p.platformId, type: 'order.nope' as never, data: { object: {} } }];
    await expect(h.db.transaction().execute((tx) => emitEvents(tx, bad))).rejects.toThrow(/unknown event type/);
    const after = await h.db.selectFrom('events').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });
});
