import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { callerOf, idempotencyScope, platformIdOf } from '../../src/api/middleware/auth.js';
import { keysRepo } from '../../src/modules/keys/repo.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { fakeChain, merchant } from '../helpers/factories.js';

/**
 * Order and checkout creation do not read a secret key this instance has already found valid: their own
 * query checks it is unrevoked (api/middleware/auth.ts KEY_CHECKED_BY_ROUTE). Every answer a revoked key
 * got before must stay exactly what it was.
 */
let h: Harness;
beforeAll(async () => {
  h = await createHarness(fakeChain());
});
afterAll(async () => { await h.close(); });
afterEach(() => { vi.restoreAllMocks(); });

let seq = 0;
const orderBody = (merchantId: string, extra: Record<string, unknown> = {}) =>
  ({ merchant_id: merchantId, order_no: `kr_${++seq}`, chain_id: 84532, token: 'USDC', amount: '10.00', ...extra });

/** A platform with a merchant and a second secret key, used once so that this instance remembers it. */
async function rememberedKey() {
  const p = await h.platform();
  const m = await merchant(h, p.secretKey);
  const rolled = await h.request('POST', '/v1/developers/keys', { cookie: p.cookie });
  const key = rolled.body.key as string;
  expect((await h.request('POST', '/v1/orders', { key, body: orderBody(m.external_id) })).status).toBe(201);
  const revoke = async () => expect((await h.request('POST', `/v1/developers/keys/${rolled.body.id}/revoke`, { cookie: p.cookie })).status).toBe(200);
  return { p, m, key, keyId: rolled.body.id as string, revoke };
}

const rows = async () => ({ orders: await h.count('orders'), sessions: await h.count('checkout_sessions') });

describe('a secret key this instance has seen', () => {
  it('creates orders and sessions without reading the key again, where other routes read it every time', async () => {
    const { m, key } = await rememberedKey();
    const lookups = vi.spyOn(keysRepo, 'findByHash');
    expect((await h.request('POST', '/v1/orders', { key, body: orderBody(m.external_id) })).status).toBe(201);
    expect((await h.request('POST', '/v1/checkout/sessions', { key, body: orderBody(m.external_id) })).status).toBe(201);
    expect(lookups).not.toHaveBeenCalled();
    expect((await h.request('GET', '/v1/me', { key })).status).toBe(200);
    expect(lookups).toHaveBeenCalledTimes(1);
  });

  it('is refused with 401 on the order and checkout routes the moment it is revoked, and nothing is written', async () => {
    const { m, key, revoke } = await rememberedKey();
    await revoke();
    const before = await rows();
    for (const path of ['/v1/orders', '/v1/checkout/sessions']) {
      const res = await h.request('POST', path, { key, body: orderBody(m.external_id) });
      expect(res.status).toBe(401);
      expect(res.body.error).toMatchObject({ type: 'authentication_error', code: 'unauthenticated', message: 'Invalid or revoked API key.' });
    }
    expect(await rows()).toEqual(before);
  });

  it('answers a revoked key 401, not the error its request would otherwise get', async () => {
    const { m, key, revoke } = await rememberedKey();
    // While the key is valid these requests fail for their own reasons…
    const cases = [
      { path: '/v1/orders', body: orderBody(m.external_id, { amount: '1.2345678' }), status: 422 },
      { path: '/v1/orders', body: orderBody(m.external_id, { unknown_field: 1 }), status: 422 },
      { path: '/v1/orders', body: orderBody('m_nobody'), status: 404 },
      { path: '/v1/checkout/sessions', body: orderBody('m_nobody'), status: 404 },
    ];
    for (const c of cases) expect((await h.request('POST', c.path, { key, body: c.body })).status).toBe(c.status);
    const used = orderBody(m.external_id);
    expect((await h.request('POST', '/v1/orders', { key, body: used })).status).toBe(201);
    expect((await h.request('POST', '/v1/orders', { key, body: used })).status).toBe(409);
    // …and once it is revoked every one of them is 401, as if the key had been read first.
    await revoke();
    const before = await rows();
    for (const c of [...cases, { path: '/v1/orders', body: used, status: 409 }]) {
      const res = await h.request('POST', c.path, { key, body: c.body });
      expect(res.status, `${c.path} ${JSON.stringify(c.body)}`).toBe(401);
      expect(res.body.error.code).toBe('unauthenticated');
      expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    }
    expect(await rows()).toEqual(before);
  });

  it('is read before anything else when the request carries an Idempotency-Key', async () => {
    const { m, key, revoke } = await rememberedKey();
    const body = orderBody(m.external_id);
    const first = await h.request('POST', '/v1/orders', { key, body, idem: 'kr-replay-1' });
    expect(first.status).toBe(201);
    const lookups = vi.spyOn(keysRepo, 'findByHash');
    const replay = await h.request('POST', '/v1/orders', { key, body, idem: 'kr-replay-1' });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(lookups).toHaveBeenCalledTimes(1);
    // A revoked key cannot read the stored answer back.
    await revoke();
    const refused = await h.request('POST', '/v1/orders', { key, body, idem: 'kr-replay-1' });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('idempotent-replayed')).toBeNull();
  });

  it("cannot act for another platform: a key's platform comes only from its own row", async () => {
    const a = await rememberedKey();
    const b = await h.platform();
    const mb = await merchant(h, b.secretKey);
    // Platform A's remembered key naming platform B's merchant finds no such merchant in A.
    const res = await h.request('POST', '/v1/orders', { key: a.key, body: orderBody(mb.external_id) });
    expect(res.status).toBe(404);
    expect(await h.db.selectFrom('orders').select('id').where('platform_id', '=', b.platformId).execute()).toHaveLength(0);
  });

  it('leaves a publishable key to the normal lookup: 403 while valid, 401 once revoked', async () => {
    const p = await h.platform();
    const m = await merchant(h, p.secretKey);
    const forbidden = await h.request('POST', '/v1/orders', { key: p.publishableKey, body: orderBody(m.external_id) });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.code).toBe('secret_key_required');
    const pk = ((await h.request('GET', '/v1/developers/keys', { key: p.secretKey })).body.data as any[]).find((k) => k.kind === 'publishable');
    expect((await h.request('POST', `/v1/developers/keys/${pk.id}/revoke`, { cookie: p.cookie })).status).toBe(200);
    expect((await h.request('POST', '/v1/orders', { key: p.publishableKey, body: orderBody(m.external_id) })).status).toBe(401);
  });
});

describe('an unchecked key principal', () => {
  const unchecked = { kind: 'secret' as const, platformId: 'plt_x', keyId: 'key_x', unverified: true as const };

  it('gives its platform only together with the key to check', () => {
    expect(callerOf(unchecked)).toEqual({ platformId: 'plt_x', uncheckedKeyId: 'key_x' });
    expect(callerOf({ kind: 'secret', platformId: 'plt_x', keyId: 'key_x' })).toEqual({ platformId: 'plt_x', uncheckedKeyId: null });
  });

  it('is refused by every helper that would act on it without the check', () => {
    expect(() => platformIdOf(unchecked)).toThrow(/not yet checked/);
    expect(() => idempotencyScope(unchecked)).toThrow(/not yet checked/);
  });
});
