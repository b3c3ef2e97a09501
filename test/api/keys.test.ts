import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/lib/ids.js';
import { BASE, createHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h?.close();
});

const me = (key: string) => h.request('GET', '/v1/me', { key });

describe('listing keys', () => {
  it('lists the platform keys by session and by secret key, never showing a secret', async () => {
    const p = await h.platform();
    const bySession = await h.request('GET', '/v1/developers/keys', { cookie: p.cookie });
    const byBearer = await h.request('GET', '/v1/developers/keys', { key: p.secretKey });
    expect(bySession.status).toBe(200);
    expect(byBearer.status).toBe(200);
    const ids = (r: typeof byBearer) => (r.body.data as any[]).map((k) => [k.id, k.kind, k.key]);
    expect(ids(byBearer)).toEqual(ids(bySession));
    expect(byBearer.body).toMatchObject({ object: 'list', has_more: false, next_cursor: null });
    const data = byBearer.body.data as any[];
    expect(data).toHaveLength(2);
    const secret = data.find((k) => k.kind === 'secret');
    const publishable = data.find((k) => k.kind === 'publishable');
    expect(secret).toMatchObject({ object: 'api_key', key: null, state: 'active', revoked_at: null, hint: `sk_live_…${p.secretKey.slice(-4)}` });
    expect(secret.id).toMatch(/^key_[0-9A-Za-z]{20}$/);
    expect(publishable).toMatchObject({ object: 'api_key', key: p.publishableKey, state: 'active' });
    expect(byBearer.text).not.toContain(p.secretKey);
  });

  it('shows only the caller platform keys', async () => {
    const a = await h.platform();
    const b = await h.platform();
    const listA = await h.request('GET', '/v1/developers/keys', { key: a.secretKey });
    const idsB = ((await h.request('GET', '/v1/developers/keys', { key: b.secretKey })).body.data as any[]).map((k) => k.id);
    for (const k of listA.body.data as any[]) expect(idsB).not.toContain(k.id);
    expect(listA.text).not.toContain(b.publishableKey);
  });

  it('refuses a signed-in account without a platform (403 forbidden)', async () => {
    const u = await h.signUp();
    const res = await h.request('GET', '/v1/developers/keys', { cookie: u.cookie });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
  });
});

const session = (p: { cookie: string }, extra: Record<string, string> = {}) => ({ cookie: p.cookie, headers: { origin: BASE, ...extra } });
const roll = (p: { cookie: string }) => h.request('POST', '/v1/developers/keys', session(p));
const keyIds = async (p: { secretKey: string }) => (await h.request('GET', '/v1/developers/keys', { key: p.secretKey })).body.data as any[];

describe('rolling and revoking', () => {
  it('rolls a new secret shown once from the dashboard; the old key keeps working until revoked, then fails at once', async () => {
    const p = await h.platform();
    const rolled = await roll(p);
    expect(rolled.status).toBe(201);
    expect(rolled.body).toMatchObject({ object: 'api_key', kind: 'secret', state: 'active' });
    const newKey = rolled.body.key as string;
    expect(newKey).toMatch(/^sk_live_[0-9A-Za-z]{32}$/);
    expect(newKey).not.toBe(p.secretKey);

    // Shown once: the list (active first, newest first) has the new key without its secret.
    const list = await h.request('GET', '/v1/developers/keys', { key: newKey });
    expect(list.body.data).toHaveLength(3);
    expect((list.body.data as any[])[0]).toMatchObject({ id: rolled.body.id, key: null });
    expect(list.text).not.toContain(newKey);

    expect((await me(p.secretKey)).status).toBe(200);
    expect((await me(newKey)).status).toBe(200);

    const oldId = (list.body.data as any[]).find((k) => k.kind === 'secret' && k.id !== rolled.body.id).id;
    const revoked = await h.request('POST', `/v1/developers/keys/${oldId}/revoke`, session(p));
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id: oldId, state: 'revoked', key: null });
    expect(revoked.body.revoked_at).toEqual(expect.any(String));

    const after = await me(p.secretKey);
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('unauthenticated');
    expect((await me(newKey)).status).toBe(200);

    // Revoking again changes nothing and says so.
    const again = await h.request('POST', `/v1/developers/keys/${oldId}/revoke`, session(p));
    expect(again.status).toBe(200);
    expect(again.body.revoked_at).toBe(revoked.body.revoked_at);
  });

  it('refuses to create a key with a secret key: 403 session_required, nothing written', async () => {
    const p = await h.platform();
    const [keys, audit] = [await h.count('api_keys'), await h.count('key_audit_log')];
    const res = await h.request('POST', '/v1/developers/keys', { key: p.secretKey });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ type: 'permission_error', code: 'session_required' });
    expect([await h.count('api_keys'), await h.count('key_audit_log')]).toEqual([keys, audit]);
  });

  it('lets a secret key revoke itself, and nothing else of its platform (403 forbidden, the key keeps working)', async () => {
    const p = await h.platform();
    const second = (await roll(p)).body;
    const pk = (await keyIds(p)).find((k) => k.kind === 'publishable');
    for (const id of [second.id, pk.id]) {
      const res = await h.request('POST', `/v1/developers/keys/${id}/revoke`, { key: p.secretKey });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
      expect(res.body.error.message).toMatch(/may revoke only itself/);
    }
    expect((await me(second.key)).status).toBe(200);
    expect((await me(p.publishableKey)).status).toBe(200);

    const ownId = (await keyIds(p)).find((k) => k.kind === 'secret' && k.id !== second.id).id;
    const self = await h.request('POST', `/v1/developers/keys/${ownId}/revoke`, { key: p.secretKey });
    expect(self.status).toBe(200);
    expect(self.body).toMatchObject({ id: ownId, state: 'revoked' });
    expect((await me(p.secretKey)).status).toBe(401);
    expect((await me(second.key)).status).toBe(200);
  });

  it('revokes the publishable key from a session', async () => {
    const p = await h.platform();
    const pk = (await keyIds(p)).find((k) => k.kind === 'publishable');
    expect((await h.request('POST', `/v1/developers/keys/${pk.id}/revoke`, session(p))).status).toBe(200);
    expect((await me(p.publishableKey)).status).toBe(401);
  });

  it("answers 404 for another platform's key and leaves it working", async () => {
    const a = await h.platform();
    const b = await h.platform();
    const bSecret = (await keyIds(b)).find((k) => k.kind === 'secret');
    const res = await h.request('POST', `/v1/developers/keys/${bSecret.id}/revoke`, { key: a.secretKey });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    expect((await me(b.secretKey)).status).toBe(200);
    const viaSession = await h.request('POST', `/v1/developers/keys/${bSecret.id}/revoke`, session(a));
    expect(viaSession.status).toBe(404);
    for (const opts of [{ key: a.secretKey }, session(a)]) {
      const unknown = await h.request('POST', '/v1/developers/keys/key_doesnotexist0000000/revoke', opts);
      expect(unknown.status).toBe(404);
    }
    expect((await me(b.secretKey)).status).toBe(200);
  });
});

describe('paging', () => {
  it('lists active keys first, then revoked ones, newest first within each, in cursor pages with an honest has_more', async () => {
    const p = await h.platform();
    const rolled: string[] = [];
    for (let i = 0; i < 4; i++) rolled.push((await roll(p)).body.id);
    for (const id of [rolled[3], rolled[1]]) expect((await h.request('POST', `/v1/developers/keys/${id}/revoke`, session(p))).status).toBe(200);
    const rows = await h.db.selectFrom('api_keys').selectAll().where('platform_id', '=', p.platformId).execute();
    expect(rows).toHaveLength(6);
    const byId = new Map(rows.map((r) => [r.id, r]));
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: any = await h.request('GET', `/v1/developers/keys?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { key: p.secretKey });
      expect(res.status).toBe(200);
      expect(res.body.data).toHaveLength(2);
      seen.push(...res.body.data.map((k: any) => k.id));
      expect(res.body.has_more).toBe(seen.length < 6);
      cursor = res.body.next_cursor;
      expect(cursor === null).toBe(!res.body.has_more);
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(new Set(seen)).toEqual(new Set(byId.keys()));
    const listed = seen.map((id) => byId.get(id)!);
    expect(listed.map((r) => (r.revoked_at ? 'revoked' : 'active'))).toEqual(['active', 'active', 'active', 'active', 'revoked', 'revoked']);
    for (let i = 1; i < listed.length; i++) {
      if (Boolean(listed[i]!.revoked_at) === Boolean(listed[i - 1]!.revoked_at)) expect(listed[i]!.created_at.getTime()).toBeLessThanOrEqual(listed[i - 1]!.created_at.getTime());
    }
    expect(listed.slice(4).map((r) => r.id)).toEqual([rolled[3], rolled[1]]);
    const all = await h.request('GET', '/v1/developers/keys', session(p));
    expect(all.body).toMatchObject({ object: 'list', has_more: false, next_cursor: null });
    expect((all.body.data as any[]).map((k) => k.state)).toEqual(['active', 'active', 'active', 'active', 'revoked', 'revoked']);
  });

  it('refuses a cursor it did not issue and a limit out of 1..100 with 422', async () => {
    const p = await h.platform();
    const valid = Buffer.from(JSON.stringify([new Date().toISOString(), 'key_x'])).toString('base64url');
    for (const q of ['cursor=x', `cursor=z${valid}`, 'cursor=a', `cursor=a${Buffer.from('["x","key_1"]').toString('base64url')}`, 'limit=0', 'limit=101', 'nope=1']) {
      const res = await h.request('GET', `/v1/developers/keys?${q}`, { key: p.secretKey });
      expect(res.status, q).toBe(422);
      expect(res.body.error.code).toBe('validation_failed');
    }
    expect((await h.request('GET', `/v1/developers/keys?cursor=r${valid}`, { key: p.secretKey })).body.data).toEqual([]);
  });
});

describe('storage', () => {
  it('stores only SHA-256 hashes of secret keys: the raw key appears nowhere in api_keys', async () => {
    const p = await h.platform();
    const rolled = (await roll(p)).body.key as string;
    const rows = await sql<{ row: string }>`select row_to_json(k)::text as row from api_keys k`.execute(h.db);
    const dump = rows.rows.map((r) => r.row).join('\n');
    for (const raw of [p.secretKey, rolled]) {
      expect(dump).not.toContain(raw);
      expect(dump).not.toContain(raw.slice('sk_live_'.length));
      expect(dump).toContain(sha256Hex(raw));
    }
  });
});

describe('publishable keys and malformed credentials', () => {
  it('refuses a publishable key: 403 secret_key_required where a secret key would do, 403 session_required on key creation', async () => {
    const p = await h.platform();
    const keys = await h.count('api_keys');
    for (const [method, path, code] of [['GET', '/v1/developers/keys', 'secret_key_required'], ['GET', '/v1/developers/audit_log', 'secret_key_required'], ['POST', '/v1/developers/keys', 'session_required']] as const) {
      const res = await h.request(method, path, { key: p.publishableKey });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe(code);
    }
    expect(await h.count('api_keys')).toBe(keys);
  });

  it.each([
    ['Bearer', 'Bearer'],
    ['Bearer and spaces', 'Bearer   '],
    ['a short key', 'Bearer sk_live_abc'],
    ['an unknown, well-formed key', `Bearer sk_live_${'A'.repeat(32)}`],
    ['an unknown publishable key', `Bearer pk_live_${'B'.repeat(32)}`],
    ['another prefix', `Bearer rk_live_${'C'.repeat(32)}`],
    ['two tokens', `Bearer sk_live_${'D'.repeat(32)} extra`],
    ['Basic credentials', 'Basic dXNlcjpwYXNzd29yZA=='],
    ['a bare key', `sk_live_${'E'.repeat(32)}`],
    ['the admin token on /v1', 'Bearer adm_test_token_0123456789abcdef'],
  ])('answers %s with 401 unauthenticated', async (_label, authorization) => {
    const res = await h.request('GET', '/v1/developers/keys', { headers: { authorization } });
    expect(res.status).toBe(401);
    expect(res.body.error).toMatchObject({ type: 'authentication_error', code: 'unauthenticated' });
  });

  it('answers a missing credential with 401', async () => {
    for (const [method, path] of [['GET', '/v1/developers/keys'], ['POST', '/v1/developers/keys'], ['POST', '/v1/developers/keys/key_x/revoke']] as const) {
      const res = await h.request(method, path);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('unauthenticated');
    }
  });
});
