import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, createHarness, TEST_DB, type Harness } from '../helpers/harness.js';

/**
 * Issue 26 item 4: with one leaked secret key an attacker revoked the platform's real key, created 100 more keys,
 * revoked those, and the dashboard (whose list stopped at 100 with has_more: false) showed 100 revoked keys and
 * no active one while the attacker's key kept working. Everything here goes through the public API.
 */
let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h?.close();
});

type Platform = Awaited<ReturnType<Harness['platform']>>;
const dashboard = (p: Platform) => ({ cookie: p.cookie, headers: { origin: BASE } });
const create = (p: Platform) => h.request('POST', '/v1/developers/keys', dashboard(p));
const revoke = (id: string, opts: { key?: string; cookie?: string; headers?: Record<string, string> }) => h.request('POST', `/v1/developers/keys/${id}/revoke`, opts);
const me = (key: string) => h.request('GET', '/v1/me', { key });

/** Every key of the list, page by page, checking that has_more and next_cursor say the truth on each page. */
async function walk(p: Platform, limit?: number) {
  const out: any[] = [];
  let cursor: string | null = null;
  let pages = 0;
  for (;;) {
    const q = [limit ? `limit=${limit}` : '', cursor ? `cursor=${cursor}` : ''].filter(Boolean).join('&');
    const res: any = await h.request('GET', `/v1/developers/keys${q ? `?${q}` : ''}`, dashboard(p));
    expect(res.status).toBe(200);
    out.push(...res.body.data);
    pages++;
    expect(res.body.next_cursor === null).toBe(!res.body.has_more);
    if (!res.body.has_more) return { keys: out, pages };
    expect(res.body.data).toHaveLength(limit ?? 20);
    cursor = res.body.next_cursor;
  }
}

const activeCount = async (platformId: string) =>
  (await h.db.selectFrom('api_keys').select('id').where('platform_id', '=', platformId).where('revoked_at', 'is', null).execute()).length;

describe('a leaked secret key', () => {
  it('cannot revoke the real key, nor create keys; the owner still sees and uses its active key', async () => {
    const p = await h.platform();
    const real = p.secretKey;
    const realId = ((await h.request('GET', '/v1/developers/keys', { key: real })).body.data as any[]).find((k) => k.kind === 'secret').id;
    // A second key, made from the dashboard for a staging server, leaks.
    const leakedRow = (await create(p)).body;
    const leaked = leakedRow.key as string;
    const before = { keys: await h.count('api_keys'), audit: await h.count('key_audit_log') };

    const attempt = await revoke(realId, { key: leaked });
    expect(attempt.status).toBe(403);
    expect(attempt.body.error).toMatchObject({ code: 'forbidden', message: expect.stringMatching(/may revoke only itself/) });
    const pkId = ((await h.request('GET', '/v1/developers/keys', { key: leaked })).body.data as any[]).find((k) => k.kind === 'publishable').id;
    expect((await revoke(pkId, { key: leaked })).status).toBe(403);
    for (let i = 0; i < 25; i++) {
      const made = await h.request('POST', '/v1/developers/keys', { key: leaked, idem: `attack-${i}` });
      expect(made.status).toBe(403);
      expect(made.body.error.code).toBe('session_required');
    }
    expect({ keys: await h.count('api_keys'), audit: await h.count('key_audit_log') }).toEqual(before);

    // The owner signs in: its real key is active and first in the list, and works.
    const list = await h.request('GET', '/v1/developers/keys', dashboard(p));
    expect((list.body.data as any[]).filter((k) => k.state === 'active').map((k) => k.id)).toContain(realId);
    expect((await me(real)).status).toBe(200);

    // The owner revokes the leaked key from the dashboard; it stops at once, and the log says who did what.
    expect((await revoke(leakedRow.id, dashboard(p))).status).toBe(200);
    expect((await me(leaked)).status).toBe(401);
    expect((await me(real)).status).toBe(200);
    const log = (await h.request('GET', '/v1/developers/audit_log', dashboard(p))).body.data as any[];
    expect(log.slice(0, 2).map((e) => [e.action, e.key_id, e.actor.type, e.actor.email])).toEqual([
      ['key.revoked', leakedRow.id, 'session', p.email],
      ['key.rolled', leakedRow.id, 'session', p.email],
    ]);
  });
});

describe('the active-key limit', () => {
  it('refuses a 21st active key with 409 key_limit_reached and writes nothing; a revocation frees a place', async () => {
    const p = await h.platform();
    const made: string[] = [];
    for (let i = 0; i < 18; i++) {
      const res = await create(p);
      expect(res.status).toBe(201);
      made.push(res.body.id);
    }
    expect(await activeCount(p.platformId)).toBe(20);
    const before = { keys: await h.count('api_keys'), audit: await h.count('key_audit_log') };
    const refused = await create(p);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ type: 'invalid_request_error', code: 'key_limit_reached', message: expect.stringMatching(/at most 20 active/) });
    expect({ keys: await h.count('api_keys'), audit: await h.count('key_audit_log') }).toEqual(before);
    expect((await revoke(made[0]!, dashboard(p))).status).toBe(200);
    expect((await create(p)).status).toBe(201);
    expect((await create(p)).status).toBe(409);
  });

  it(`lets concurrent creations reach 20 active keys and never more (${TEST_DB})`, async () => {
    const p = await h.platform();
    const results = await Promise.all(Array.from({ length: 30 }, () => create(p)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(18);
    expect(statuses.filter((s) => s === 409)).toHaveLength(12);
    for (const r of results.filter((x) => x.status === 409)) expect(r.body.error.code).toBe('key_limit_reached');
    expect(await activeCount(p.platformId)).toBe(20);
    const rolled = await h.db.selectFrom('key_audit_log').select('id').where('platform_id', '=', p.platformId).where('action', '=', 'key.rolled').execute();
    expect(rolled).toHaveLength(18);
  });
});

describe('the key list', () => {
  it('says has_more honestly past 20 and past 100 keys, and shows the active keys first', async () => {
    const p = await h.platform();
    const realId = ((await h.request('GET', '/v1/developers/keys', { key: p.secretKey })).body.data as any[]).find((k) => k.kind === 'secret').id;
    // The attack's shape, done by the owner: 105 more keys, each revoked (the real key and the publishable one stay).
    for (let i = 0; i < 105; i++) {
      const made = await create(p);
      expect(made.status).toBe(201);
      expect((await revoke(made.body.id, dashboard(p))).status).toBe(200);
    }
    const total = 107;
    expect(await h.count('api_keys')).toBeGreaterThanOrEqual(total);

    const first = await h.request('GET', '/v1/developers/keys', dashboard(p));
    expect(first.body.data).toHaveLength(20);
    expect(first.body.has_more).toBe(true);
    expect((first.body.data as any[]).slice(0, 2).map((k) => k.state)).toEqual(['active', 'active']);
    expect((first.body.data as any[]).map((k) => k.id)).toContain(realId);

    for (const limit of [undefined, 100]) {
      const { keys, pages } = await walk(p, limit);
      expect(keys).toHaveLength(total);
      expect(new Set(keys.map((k) => k.id)).size).toBe(total);
      expect(pages).toBe(limit === 100 ? 2 : 6);
      expect(keys.slice(0, 2).every((k) => k.state === 'active')).toBe(true);
      expect(keys.slice(2).every((k) => k.state === 'revoked')).toBe(true);
    }
    expect((await me(p.secretKey)).status).toBe(200);
  }, 120_000);
});
