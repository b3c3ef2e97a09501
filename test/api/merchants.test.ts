import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { WALLETS, fakeChain, merchant } from '../helpers/factories.js';

let h: Harness;
let p: Awaited<ReturnType<Harness['platform']>>;
beforeAll(async () => {
  h = await createHarness(fakeChain());
  p = await h.platform({ default_reserve_bps: 750 });
});
afterAll(async () => { await h.close(); });

describe('sub-merchants', () => {
  it('creates an active merchant, checksums the wallet and defaults the reserve to the platform default', async () => {
    const res = await h.request('POST', '/v1/onboarding/merchants', {
      key: p.secretKey, body: { external_id: 'shop-1', name: 'Shop One', merchant_wallet: WALLETS.merchant.toLowerCase(), chain_id: 84532 },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ object: 'merchant', external_id: 'shop-1', name: 'Shop One', merchant_wallet: WALLETS.merchant, chain_id: 84532, reserve_bps: 750, state: 'active' });
    expect(res.body.id).toMatch(/^mch_/);
    const byId = await h.request('GET', `/v1/merchants/${res.body.id}`, { key: p.secretKey });
    const byExt = await h.request('GET', '/v1/merchants/shop-1', { key: p.secretKey });
    expect(byId.body).toEqual(res.body);
    expect(byExt.body).toEqual(res.body);
    const events = await h.db.selectFrom('events').select(['type']).where('platform_id', '=', p.platformId).execute();
    expect(events.map((e) => e.type)).toContain('merchant.created');
  });

  it('refuses a second merchant with the same external_id (409) but allows it on another platform', async () => {
    await merchant(h, p.secretKey, { external_id: 'dup-ext' });
    const n = await h.count('merchants');
    const dup = await h.request('POST', '/v1/onboarding/merchants', { key: p.secretKey, body: { external_id: 'dup-ext', name: 'X', merchant_wallet: WALLETS.merchant2, chain_id: 84532, reserve_bps: 0 } });
    expect(dup.status).toBe(409);
    expect(dup.body.error).toMatchObject({ code: 'conflict', param: 'external_id' });
    expect(await h.count('merchants')).toBe(n);
    const other = await h.platform();
    await merchant(h, other.secretKey, { external_id: 'dup-ext' });
  });

  it('validates every field and writes nothing on failure', async () => {
    const good = { external_id: 'v-1', name: 'V', merchant_wallet: WALLETS.merchant, chain_id: 84532, reserve_bps: 100 };
    const n = await h.count('merchants');
    for (const [field, value] of [
      ['merchant_wallet', '0x123'], ['merchant_wallet', '0x0000000000000000000000000000000000000000'], ['merchant_wallet', 42],
      ['chain_id', 1], ['chain_id', '84532'], ['reserve_bps', -1], ['reserve_bps', 10001], ['reserve_bps', 1.5],
      ['name', ''], ['name', 'n'.repeat(201)], ['external_id', ''], ['external_id', 'e'.repeat(129)],
    ] as const) {
      const res = await h.request('POST', '/v1/onboarding/merchants', { key: p.secretKey, body: { ...good, [field]: value } });
      expect(res.status, `${field}=${String(value)}`).toBe(422);
      expect(res.body.error.param).toBe(field);
    }
    expect(await h.count('merchants')).toBe(n);
  });

  it('refuses a merchant on a chain the deployment does not run (8453 here) with 422 unsupported_chain, writing nothing', async () => {
    const n = await h.count('merchants');
    const events = await h.count('events');
    const res = await h.request('POST', '/v1/onboarding/merchants', {
      key: p.secretKey, body: { external_id: 'main-net', name: 'Main', merchant_wallet: WALLETS.merchant, chain_id: 8453 },
    });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'unsupported_chain', param: 'chain_id' });
    expect(await h.count('merchants')).toBe(n);
    expect(await h.count('events')).toBe(events);
    // The external_id is still free: nothing was half-written.
    expect((await h.request('POST', '/v1/onboarding/merchants', {
      key: p.secretKey, body: { external_id: 'main-net', name: 'Main', merchant_wallet: WALLETS.merchant, chain_id: 84532 },
    })).status).toBe(201);
  });

  it('lists with cursor pagination and isolates tenants', async () => {
    const q = await h.platform();
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await merchant(h, q.secretKey)).id);
    const page = await h.request('GET', '/v1/merchants?limit=2', { key: q.secretKey });
    expect(page.body.data.map((m: { id: string }) => m.id)).toEqual([ids[2], ids[1]]);
    expect(page.body.has_more).toBe(true);
    const rest = await h.request('GET', `/v1/merchants?limit=2&cursor=${page.body.next_cursor}`, { key: q.secretKey });
    expect(rest.body.data.map((m: { id: string }) => m.id)).toEqual([ids[0]]);
    const foreign = await h.request('GET', `/v1/merchants/${ids[0]}`, { key: p.secretKey });
    expect(foreign.status).toBe(404);
  });
});
