import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h?.close();
});

const ROLL = '/v1/developers/keys';
/** Creating a key (dashboard session only): an idempotent POST whose answer carries a secret. */
const roll = (p: { cookie: string }, idem: string) => h.request('POST', ROLL, { cookie: p.cookie, idem });
const keyRows = async (platformId: string) =>
  (await h.db.selectFrom('api_keys').select('id').where('platform_id', '=', platformId).execute()).length;
const idemRow = (scope: string, key: string) =>
  h.db.selectFrom('idempotency_keys').selectAll().where('scope', '=', scope).where('key', '=', key).executeTakeFirst();
const onboardBody = (over: Record<string, unknown> = {}) => ({
  name: 'Acme Market',
  platform_wallet: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
  chain_id: 84532,
  platform_fee_bps: 500,
  default_reserve_bps: 1000,
  ...over,
});

describe('replay', () => {
  it('replays the stored status and body with Idempotent-Replayed: true, and runs the request once', async () => {
    const p = await h.platform();
    const before = await keyRows(p.platformId);
    const first = await roll(p, 'replay-1');
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const second = await roll(p, 'replay-1');
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('content-type')).toMatch(/^application\/json/);
    expect(second.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(await keyRows(p.platformId)).toBe(before + 1);
  });

  it('treats the same JSON with other key order and whitespace as the same request', async () => {
    const u = await h.signUp();
    const body = onboardBody();
    const first = await h.request('POST', '/v1/onboarding/self', { cookie: u.cookie, idem: 'onb-1', body });
    expect(first.status).toBe(201);
    const reordered = `{ "default_reserve_bps": 1000, "platform_fee_bps": 500, "chain_id": 84532,\n "platform_wallet": "${body.platform_wallet}", "name": "Acme Market" }`;
    const again = await h.request('POST', '/v1/onboarding/self', { cookie: u.cookie, idem: 'onb-1', raw: reordered });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.platform_id).toBe(first.body.platform_id);
  });

  it('refuses the same key with a different body: 409 duplicate_idempotency_key', async () => {
    const u = await h.signUp();
    expect((await h.request('POST', '/v1/onboarding/self', { cookie: u.cookie, idem: 'onb-2', body: onboardBody() })).status).toBe(201);
    const platforms = await h.count('platforms');
    const res = await h.request('POST', '/v1/onboarding/self', { cookie: u.cookie, idem: 'onb-2', body: onboardBody({ name: 'Other' }) });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ type: 'idempotency_error', code: 'duplicate_idempotency_key' });
    expect(await h.count('platforms')).toBe(platforms);
  });

  it('refuses the same key on a different path: 409 duplicate_idempotency_key, nothing done', async () => {
    const p = await h.platform();
    const rolled = await roll(p, 'path-1');
    expect(rolled.status).toBe(201);
    const res = await h.request('POST', `${ROLL}/${rolled.body.id}/revoke`, { cookie: p.cookie, idem: 'path-1' });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('duplicate_idempotency_key');
    expect((await h.request('GET', '/v1/me', { key: rolled.body.key })).status).toBe(200);
  });

  it('keeps keys per caller: two platforms use the same key independently', async () => {
    const a = await h.platform();
    const b = await h.platform();
    const ra = await roll(a, 'shared-key');
    const rb = await roll(b, 'shared-key');
    expect(ra.status).toBe(201);
    expect(rb.status).toBe(201);
    expect(rb.headers.get('idempotent-replayed')).toBeNull();
    expect(rb.body.id).not.toBe(ra.body.id);
    const ra2 = await roll(a, 'shared-key');
    expect(ra2.body.id).toBe(ra.body.id);
    // The publishable key of B is refused before idempotency is consulted, and leaves no row.
    expect((await h.request('POST', ROLL, { key: b.publishableKey, idem: 'shared-key-2' })).status).toBe(403);
    expect(await idemRow(`plt:${b.platformId}`, 'shared-key-2')).toBeUndefined();
  });

  it('refuses an Idempotency-Key longer than 255 characters with 422, and accepts 255', async () => {
    const p = await h.platform();
    const before = await keyRows(p.platformId);
    const long = await roll(p, 'k'.repeat(256));
    expect(long.status).toBe(422);
    expect(long.body.error).toMatchObject({ code: 'validation_failed', param: 'Idempotency-Key' });
    expect(await keyRows(p.platformId)).toBe(before);
    expect(await idemRow(`usr:${p.userId}`, 'k'.repeat(256))).toBeUndefined();
    const max = await roll(p, 'k'.repeat(255));
    expect(max.status).toBe(201);
  });
});

describe('under concurrency', () => {
  it('runs a 20-way race of identical POSTs exactly once; the rest replay it or are told it is in use', async () => {
    const p = await h.platform();
    const before = await keyRows(p.platformId);
    const results = await Promise.all(Array.from({ length: 20 }, () => roll(p, 'race-1')));
    expect(await keyRows(p.platformId)).toBe(before + 1);

    const stored = await idemRow(`usr:${p.userId}`, 'race-1');
    expect(stored?.status).toBe(201);
    // Stored sealed: the response carries a secret key, which never sits in the database in the clear.
    expect(stored!.response_body).not.toContain('sk_live_');
    const storedBody = JSON.parse(h.services.idempotency.open(stored!.response_body!));
    const fresh = results.filter((r) => r.status === 201 && r.headers.get('idempotent-replayed') === null);
    expect(fresh).toHaveLength(1);
    for (const r of results) {
      if (r.status === 201) {
        expect(r.body).toEqual(storedBody);
      } else {
        expect(r.status).toBe(409);
        expect(r.body.error.code).toBe('idempotency_key_in_use');
      }
    }
    const after = await roll(p, 'race-1');
    expect(after.headers.get('idempotent-replayed')).toBe('true');
    expect(after.body).toEqual(storedBody);
  });
});

describe('what is not stored, and what lapses', () => {
  it('does not store a validation failure: the fixed request may reuse the key', async () => {
    const u = await h.signUp();
    const bad = await h.request('POST', '/v1/onboarding/self', { cookie: u.cookie, idem: 'fix-1', body: onboardBody({ chain_id: 1 }) });
    expect(bad.status).toBe(422);
    expect(await idemRow(`usr:${u.userId}`, 'fix-1')).toBeUndefined();
    const malformed = await h.request('POST', '/v1/onboarding/self', { cookie: u.cookie, idem: 'fix-1', raw: '{"name":' });
    expect(malformed.status).toBe(400);
    expect(await idemRow(`usr:${u.userId}`, 'fix-1')).toBeUndefined();
    const good = await h.request('POST', '/v1/onboarding/self', { cookie: u.cookie, idem: 'fix-1', body: onboardBody() });
    expect(good.status).toBe(201);
    expect(good.headers.get('idempotent-replayed')).toBeNull();
  });

  it('does not store a refusal by the route guard: the key stays free for a request that may run', async () => {
    const u = await h.signUp();
    const refused = await h.request('POST', ROLL, { cookie: u.cookie, idem: 'guard-1' });
    expect(refused.status).toBe(403);
    expect(await idemRow(`usr:${u.userId}`, 'guard-1')).toBeUndefined();
    expect((await h.request('POST', '/v1/onboarding/self', { cookie: u.cookie, body: onboardBody() })).status).toBe(201);
    const allowed = await h.request('POST', ROLL, { cookie: u.cookie, idem: 'guard-1' });
    expect(allowed.status).toBe(201);
    expect(allowed.headers.get('idempotent-replayed')).toBeNull();
  });

  it('answers 409 idempotency_key_in_use while a request holds the key, and takes over a lock older than 90 s', async () => {
    const p = await h.platform();
    const first = await roll(p, 'crash-1');
    expect(first.status).toBe(201);
    const scope = `usr:${p.userId}`;
    // Simulate a request that took the key and crashed before storing its answer.
    const setLock = (ago: string) =>
      sql`update idempotency_keys set status = null, response_body = null, locked_at = now() - ${ago}::interval
          where scope = ${scope} and key = 'crash-1'`.execute(h.db);

    await setLock('30 seconds');
    const busy = await roll(p, 'crash-1');
    expect(busy.status).toBe(409);
    expect(busy.body.error).toMatchObject({ type: 'idempotency_error', code: 'idempotency_key_in_use' });

    await setLock('91 seconds');
    const before = await keyRows(p.platformId);
    const taken = await roll(p, 'crash-1');
    expect(taken.status).toBe(201);
    expect(taken.headers.get('idempotent-replayed')).toBeNull();
    expect(await keyRows(p.platformId)).toBe(before + 1);
    const row = await idemRow(scope, 'crash-1');
    expect(row?.status).toBe(201);
    expect(JSON.parse(h.services.idempotency.open(row!.response_body!)).id).toBe(taken.body.id);
  });

  it('forgets a key after 24 h: the same key then runs the request again', async () => {
    const p = await h.platform();
    const scope = `usr:${p.userId}`;
    const first = await roll(p, 'ttl-1');
    await sql`update idempotency_keys set created_at = now() - interval '23 hours' where scope = ${scope} and key = 'ttl-1'`.execute(h.db);
    const stillKept = await roll(p, 'ttl-1');
    expect(stillKept.headers.get('idempotent-replayed')).toBe('true');
    expect(stillKept.body.id).toBe(first.body.id);

    await sql`update idempotency_keys set created_at = now() - interval '24 hours 1 minute' where scope = ${scope} and key = 'ttl-1'`.execute(h.db);
    const before = await keyRows(p.platformId);
    const again = await roll(p, 'ttl-1');
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(again.body.id).not.toBe(first.body.id);
    expect(await keyRows(p.platformId)).toBe(before + 1);
  });

  it('purges expired keys', async () => {
    const p = await h.platform();
    await roll(p, 'purge-1');
    await sql`update idempotency_keys set created_at = now() - interval '25 hours' where key = 'purge-1'`.execute(h.db);
    await h.services.idempotency.purgeExpired();
    expect(await idemRow(`usr:${p.userId}`, 'purge-1')).toBeUndefined();
  });

  it('ignores the header on GET', async () => {
    const p = await h.platform();
    const res = await h.request('GET', ROLL, { key: p.secretKey, idem: 'get-1' });
    expect(res.status).toBe(200);
    expect(await idemRow(`plt:${p.platformId}`, 'get-1')).toBeUndefined();
  });
});
