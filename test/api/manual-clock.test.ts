import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manualClock } from '../../src/lib/clock.js';
import { IDEMPOTENCY_LOCK_MS, IDEMPOTENCY_TTL_MS } from '../../src/modules/idempotency/service.js';
import { PREVIOUS_SECRET_TTL_MS } from '../../src/modules/webhooks/service.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { fakeChain } from '../helpers/factories.js';

/**
 * Time in keys, invitations, idempotency and webhook secrets comes from the injected clock: these tests move a
 * manual clock instead of sleeping or rewriting timestamps in the database.
 */
const clock = manualClock(Date.parse('2031-03-01T12:00:00Z'));
let h: Harness;
let p: Awaited<ReturnType<Harness['platform']>>;
beforeAll(async () => {
  h = await createHarness({ ...fakeChain(), clock });
  p = await h.platform({ name: 'Clockwork Market' });
});
afterAll(async () => { await h?.close(); });

const ROLL = '/v1/developers/keys';
let seq = 0;
const invite = (expiresIn: number) => h.request('POST', '/v1/merchants/invitations', {
  key: p.secretKey, body: { external_id: `clk_m_${++seq}`, suggested_name: 'Tick Tock', chain_id: 84532, expires_in_seconds: expiresIn },
});

describe('invitation expiry follows the service clock', () => {
  it('is pending until its expiry, then 410 invitation_expired on read, listed expired, and written expired by the sweeper', async () => {
    const inv = (await invite(600)).body;
    expect(Date.parse(inv.expires_at)).toBe(clock.ms() + 600_000);
    clock.advance(599_000);
    expect((await h.request('GET', `/v1/merchants/invitations/${inv.token}`)).body.state).toBe('pending');
    expect((await h.services.invitations.expireDue()).numUpdatedRows).toBe(0n);
    clock.advance(1_000);
    const read = await h.request('GET', `/v1/merchants/invitations/${inv.token}`);
    expect(read.status).toBe(410);
    expect(read.body.error.code).toBe('invitation_expired');
    const listed = (await h.request('GET', '/v1/merchants/invitations', { key: p.secretKey })).body.data.find((i: { id: string }) => i.id === inv.id);
    expect(listed.state).toBe('expired');
    await h.services.invitations.expireDue();
    const row = await h.db.selectFrom('invitations').select('state').where('id', '=', inv.id).executeTakeFirstOrThrow();
    expect(row.state).toBe('expired');
  });

  it('stamps a revoke with the clock time', async () => {
    const inv = (await invite(3600)).body;
    clock.advance(5_000);
    const revoked = await h.request('POST', `/v1/merchants/invitations/${inv.id}/revoke`, { key: p.secretKey });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ state: 'expired', revoked_at: clock.now().toISOString() });
  });
});

describe('idempotency keys follow the service clock', () => {
  it('replays a key until 24 h have passed on the clock, then runs the request again', async () => {
    const before = await h.count('api_keys');
    const first = await h.request('POST', ROLL, { cookie: p.cookie, idem: 'clk-ttl' });
    expect(first.status).toBe(201);
    clock.advance(IDEMPOTENCY_TTL_MS - 1_000);
    const kept = await h.request('POST', ROLL, { cookie: p.cookie, idem: 'clk-ttl' });
    expect(kept.headers.get('idempotent-replayed')).toBe('true');
    expect(kept.body.id).toBe(first.body.id);
    expect(await h.count('api_keys')).toBe(before + 1);
    clock.advance(2_000);
    const again = await h.request('POST', ROLL, { cookie: p.cookie, idem: 'clk-ttl' });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(again.body.id).not.toBe(first.body.id);
    expect(await h.count('api_keys')).toBe(before + 2);
  });

  it('a lock left by a crashed request is in use until it lapses on the clock, then taken over', async () => {
    const key = { scope: `plt:${p.platformId}`, key: 'clk-lock' };
    expect((await h.services.idempotency.claim(key, 'POST', ROLL, '{}')).kind).toBe('proceed');
    clock.advance(IDEMPOTENCY_LOCK_MS - 1_000);
    await expect(h.services.idempotency.claim(key, 'POST', ROLL, '{}')).rejects.toMatchObject({ code: 'idempotency_key_in_use' });
    clock.advance(2_000);
    expect((await h.services.idempotency.claim(key, 'POST', ROLL, '{}')).kind).toBe('proceed');
    await expect(h.services.idempotency.claim(key, 'POST', ROLL, '{}')).rejects.toMatchObject({ code: 'idempotency_key_in_use' });
  });

  it('purges keys older than 24 h on the clock, and only those', async () => {
    await h.request('POST', ROLL, { cookie: p.cookie, idem: 'clk-old' });
    clock.advance(IDEMPOTENCY_TTL_MS / 2);
    await h.request('POST', ROLL, { cookie: p.cookie, idem: 'clk-new' });
    clock.advance(IDEMPOTENCY_TTL_MS / 2 + 1_000);
    await h.services.idempotency.purgeExpired();
    const left = await h.db.selectFrom('idempotency_keys').select('key').where('scope', '=', `usr:${p.userId}`).where('key', 'in', ['clk-old', 'clk-new']).execute();
    expect(left.map((r) => r.key)).toEqual(['clk-new']);
  });
});

describe('webhook secret rotation and key revocation follow the service clock', () => {
  it('keeps the previous webhook secret exactly 24 h from the roll', async () => {
    const created = await h.request('POST', '/v1/webhooks/endpoints', { key: p.secretKey, body: { url: 'http://127.0.0.1:9/hook', subscribed_events: ['*'] } });
    expect(created.status).toBe(201);
    clock.advance(42_000);
    const rolled = await h.request('POST', `/v1/webhooks/endpoints/${created.body.id}/roll-secret`, { key: p.secretKey });
    expect(rolled.status).toBe(200);
    expect(Date.parse(rolled.body.previous_secret_expires_at)).toBe(clock.ms() + PREVIOUS_SECRET_TTL_MS);
  });

  it('stamps a key revocation with the clock time, and revoking again keeps the first time', async () => {
    const rolled = await h.request('POST', ROLL, { cookie: p.cookie });
    const revoked = await h.request('POST', `${ROLL}/${rolled.body.id}/revoke`, { cookie: p.cookie });
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).toBe(clock.now().toISOString());
    const at = revoked.body.revoked_at;
    clock.advance(60_000);
    const again = await h.request('POST', `${ROLL}/${rolled.body.id}/revoke`, { cookie: p.cookie });
    expect(again.body.revoked_at).toBe(at);
  });
});
