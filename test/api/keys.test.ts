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

describe('rolling and revoking', () => {
  it('rolls a new secret shown once; the old key keeps working until revoked, then fails at once', async () => {
    const p = await h.platform();
    const rolled = await h.request('POST', '/v1/developers/keys', { key: p.secretKey });
    expect(rolled.status).toBe(201);
    expect(rolled.body).toMatchObject({ object: 'api_key', kind: 'secret', state: 'active' });
    const newKey = rolled.body.key as string;
    expect(newKey).toMatch(/^sk_live_[0-9A-Za-z]{32}$/);
    expect(newKey).not.toBe(p.secretKey);

    // Shown once: the list (newest first) has the new key without its secret.
    const list = await h.request('GET', '/v1/developers/keys', { key: newKey });
    expect(list.body.data).toHaveLength(3);
    expect((list.body.data as any[])[0]).toMatchObject({ id: rolled.body.id, key: null });
    expect(list.text).not.toContain(newKey);

    expect((await me(p.secretKey)).status).toBe(200);
    expect((await me(newKey)).status).toBe(200);

    const oldId = (list.body.data as any[]).find((k) => k.kind === 'secret' && k.id !== rolled.body.id).id;
    const revoked = await h.request('POST', `/v1/developers/keys/${oldId}/revoke`, { key: newKey });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id: oldId, state: 'revoked', key: null });
    expect(revoked.body.revoked_at).toEqual(expect.any(String));

    const after = await me(p.secretKey);
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe('unauthenticated');
    expect((await me(newKey)).status).toBe(200);

    // Revoking again changes nothing and says so.
    const again = await h.request('POST', `/v1/developers/keys/${oldId}/revoke`, { key: newKey });
    expect(again.status).toBe(200);
    expect(again.body.revoked_at).toBe(revoked.body.revoked_at);
  });

  it('rolls and revokes from a dashboard session too', async () => {
    const p = await h.platform();
    const rolled = await h.request('POST', '/v1/developers/keys', { cookie: p.cookie, headers: { origin: BASE } });
    expect(rolled.status).toBe(201);
    const revoked = await h.request('POST', `/v1/developers/keys/${rolled.body.id}/revoke`, { cookie: p.cookie, headers: { origin: BASE } });
    expect(revoked.status).toBe(200);
    expect((await me(rolled.body.key)).status).toBe(401);
  });

  it('revokes the publishable key too', async () => {
    const p = await h.platform();
    const list = await h.request('GET', '/v1/developers/keys', { key: p.secretKey });
    const pk = (list.body.data as any[]).find((k) => k.kind === 'publishable');
    expect((await h.request('POST', `/v1/developers/keys/${pk.id}/revoke`, { key: p.secretKey })).status).toBe(200);
    expect((await me(p.publishableKey)).status).toBe(401);
  });

  it("answers 404 for another platform's key and leaves it working", async () => {
    const a = await h.platform();
    const b = await h.platform();
    const bKeys = (await h.request('GET', '/v1/developers/keys', { key: b.secretKey })).body.data as any[];
    const bSecret = bKeys.find((k) => k.kind === 'secret');
    const res = await h.request('POST', `/v1/developers/keys/${bSecret.id}/revoke`, { key: a.secretKey });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    expect((await me(b.secretKey)).status).toBe(200);
    const viaSession = await h.request('POST', `/v1/developers/keys/${bSecret.id}/revoke`, { cookie: a.cookie });
    expect(viaSession.status).toBe(404);
    const unknown = await h.request('POST', '/v1/developers/keys/key_doesnotexist0000000/revoke', { key: a.secretKey });
    expect(unknown.status).toBe(404);
  });
});

describe('storage', () => {
  it('stores only SHA-256 hashes of secret keys: the raw key appears nowhere in api_keys', async () => {
    const p = await h.platform();
    const rolled = (await h.request('POST', '/v1/developers/keys', { key: p.secretKey })).body.key as string;
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
  it('refuses a publishable key on secret endpoints with 403 secret_key_required', async () => {
    const p = await h.platform();
    const keys = await h.count('api_keys');
    for (const [method, path] of [['GET', '/v1/developers/keys'], ['POST', '/v1/developers/keys']] as const) {
      const res = await h.request(method, path, { key: p.publishableKey });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('secret_key_required');
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
