import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
let p: Awaited<ReturnType<Harness['platform']>>;
beforeAll(async () => {
  h = await createHarness();
  p = await h.platform();
});
afterAll(async () => {
  await h?.close();
});

describe('GET /v1/me', () => {
  it('answers a session that has no platform yet with onboarded:false and platform_id:null', async () => {
    const u = await h.signUp();
    const res = await h.request('GET', '/v1/me', { cookie: u.cookie });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ user_id: u.userId, platform_id: null, platform_name: null, auth_kind: 'session', onboarded: false });
  });

  it('answers an onboarded session with its platform', async () => {
    const res = await h.request('GET', '/v1/me', { cookie: p.cookie });
    expect(res.body).toEqual({ user_id: p.userId, platform_id: p.platformId, platform_name: 'Acme Market', auth_kind: 'session', onboarded: true });
  });

  it('answers a secret key as secret_key', async () => {
    const res = await h.request('GET', '/v1/me', { key: p.secretKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ user_id: p.userId, platform_id: p.platformId, platform_name: 'Acme Market', auth_kind: 'secret_key', onboarded: true });
  });

  it("allows the publishable key here (DESIGN §3) and says so, without the owner's user id", async () => {
    const res = await h.request('GET', '/v1/me', { key: p.publishableKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ user_id: null, platform_id: p.platformId, platform_name: 'Acme Market', auth_kind: 'publishable_key', onboarded: true });
  });

  it('is 401 unauthenticated without a credential, or with a cookie that is not a session', async () => {
    for (const opts of [{}, { cookie: 'better-auth.session_token=forged.signature' }]) {
      const res = await h.request('GET', '/v1/me', opts);
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('unauthenticated');
    }
  });

  it('does not fall back to the session when an explicit bearer is invalid', async () => {
    const res = await h.request('GET', '/v1/me', { cookie: p.cookie, key: 'sk_live_00000000000000000000000000000000' });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthenticated');
  });

  it('prefers the bearer over the session when both are valid', async () => {
    const other = await h.signUp();
    const res = await h.request('GET', '/v1/me', { cookie: other.cookie, key: p.secretKey });
    expect(res.body).toMatchObject({ platform_id: p.platformId, auth_kind: 'secret_key' });
  });
});
