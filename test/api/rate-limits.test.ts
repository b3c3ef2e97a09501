import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../src/app.js';
import { createRateLimiter } from '../../src/api/middleware/rate-limit.js';
import { BASE, createHarness, type Harness } from '../helpers/harness.js';

/**
 * Issue 19: per platform, per client address on the public routes, per address on sign-up/sign-in. Issue 26 item 7:
 * every principal has a bucket (platform-wide for all its keys and sessions, per user, publishable keys per
 * platform), invalid credentials per address before the lookup, IPv6 by /64, the password routes share sign-in's
 * bucket. Each app gets a clock of its own that the test moves: recovery after the window without sleeping.
 */
let h: Harness;
beforeAll(async () => {
  h = await createHarness({ config: { rateLimits: { perSecond: 5, burst: 5, publicPerSecond: 1, publicBurst: 3, authPerMinute: 3 } } });
});
afterAll(async () => {
  await h?.close();
});

function clockedApp() {
  let t = 1_000_000;
  const app = buildApp(h.services, { now: () => t });
  const call = async (method: string, path: string, o: { key?: string; cookie?: string; ip?: string; body?: unknown } = {}) => {
    const headers: Record<string, string> = {};
    if (o.key) headers.authorization = `Bearer ${o.key}`;
    if (o.cookie) headers.cookie = o.cookie;
    if (o.ip) headers['x-forwarded-for'] = o.ip;
    if (o.body !== undefined) {
      headers['content-type'] = 'application/json';
      headers.origin = BASE;
    }
    const res = await app.request(`${BASE}${path}`, { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body) });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: text && res.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : text };
  };
  return { call, advance: (ms: number) => { t += ms; } };
}

function expectLimited(res: { status: number; headers: Headers; body: any }, policy: string, q: number, w: number) {
  expect(res.status).toBe(429);
  expect(res.body.error).toMatchObject({ code: 'rate_limited', type: 'rate_limit_error' });
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(res.headers.get('ratelimit-policy')).toBe(`"${policy}";q=${q};w=${w}`);
  expect(res.headers.get('ratelimit')).toMatch(new RegExp(`^"${policy}";r=0;t=\\d+$`));
}

describe('per platform', () => {
  it('answers 429 with Retry-After and RateLimit headers past the burst, leaves other platforms and public routes alone, recovers', async () => {
    const a = await h.platform();
    const b = await h.platform();
    const { call, advance } = clockedApp();
    for (let i = 0; i < 5; i++) {
      const ok = await call('GET', '/v1/me', { key: a.secretKey });
      expect(ok.status).toBe(200);
      expect(ok.headers.get('ratelimit-policy')).toBe('"platform";q=5;w=1');
      expect(ok.headers.get('ratelimit')).toBe(`"platform";r=${4 - i};t=1`);
    }
    const limited = await call('GET', '/v1/me', { key: a.secretKey });
    expectLimited(limited, 'platform', 5, 1);
    expect(limited.headers.get('retry-after')).toBe('1');
    // A write is refused before it does anything.
    const before = await h.count('webhook_endpoints');
    expectLimited(await call('POST', '/v1/webhooks/endpoints', { key: a.secretKey, body: { url: 'http://127.0.0.1:9/x', subscribed_events: ['*'] } }), 'platform', 5, 1);
    expect(await h.count('webhook_endpoints')).toBe(before);

    expect((await call('GET', '/v1/me', { key: b.secretKey })).status).toBe(200);
    expect((await call('GET', '/v1/checkout/sessions/cs_live_nope', { ip: '203.0.113.7' })).status).toBe(404);

    advance(199);
    expect((await call('GET', '/v1/me', { key: a.secretKey })).status).toBe(429);
    advance(1);
    expect((await call('GET', '/v1/me', { key: a.secretKey })).status).toBe(200);
    expect((await call('GET', '/v1/me', { key: a.secretKey })).status).toBe(429);
    advance(1_000);
    for (let i = 0; i < 5; i++) expect((await call('GET', '/v1/me', { key: a.secretKey })).status).toBe(200);
  });

  it('takes a platform\'s own rate (platforms.rate_limit_per_second / rate_limit_burst) over the default', async () => {
    const p = await h.platform();
    await h.db.updateTable('platforms').set({ rate_limit_per_second: 1, rate_limit_burst: 2 }).where('id', '=', p.platformId).execute();
    const { call, advance } = clockedApp();
    expect((await call('GET', '/v1/me', { key: p.secretKey })).status).toBe(200);
    expect((await call('GET', '/v1/me', { key: p.secretKey })).status).toBe(200);
    expectLimited(await call('GET', '/v1/me', { key: p.secretKey }), 'platform', 2, 2);
    advance(1_000);
    expect((await call('GET', '/v1/me', { key: p.secretKey })).status).toBe(200);
  });
});

describe('per client address on the public routes', () => {
  it('limits session read, invitation read and complete per address; other addresses and keys unaffected; recovers', async () => {
    const p = await h.platform();
    const { call, advance } = clockedApp();
    const ip = '198.51.100.23';
    expect((await call('GET', '/v1/checkout/sessions/cs_live_nope', { ip })).status).toBe(404);
    expect((await call('GET', '/v1/merchants/invitations/moi_live_nope', { ip })).status).toBe(404);
    const complete = { wallet: '0x90F79bf6EB2c4f870365E785982E1f101E93b906', name: 'A', signature: `0x${'11'.repeat(65)}` };
    expect((await call('POST', '/v1/merchants/invitations/moi_live_nope/complete', { ip, body: complete })).status).toBe(404);
    expectLimited(await call('GET', '/v1/checkout/sessions/cs_live_nope', { ip }), 'public', 3, 3);
    expectLimited(await call('GET', '/v1/merchants/invitations/moi_live_nope', { ip }), 'public', 3, 3);
    expectLimited(await call('POST', '/v1/merchants/invitations/moi_live_nope/complete', { ip, body: complete }), 'public', 3, 3);
    // The gasless relay is a public POST too: same bucket, limited before its body or any row is read.
    const relay = { from: complete.wallet, valid_after: '0', valid_before: '1', nonce: `0x${'00'.repeat(32)}`, signature: complete.signature };
    expectLimited(await call('POST', '/v1/checkout/sessions/cs_live_nope/relay', { ip, body: relay }), 'public', 3, 3);
    expect((await call('POST', '/v1/checkout/sessions/cs_live_nope/relay', { ip: '198.51.100.25', body: relay })).status).toBe(404);

    expect((await call('GET', '/v1/checkout/sessions/cs_live_nope', { ip: '198.51.100.24' })).status).toBe(404);
    expect((await call('GET', '/v1/me', { key: p.secretKey, ip })).status).toBe(200);
    advance(1_000);
    expect((await call('GET', '/v1/checkout/sessions/cs_live_nope', { ip })).status).toBe(404);
    expect((await call('GET', '/v1/checkout/sessions/cs_live_nope', { ip })).status).toBe(429);
  });
});

describe('per client address on sign-up and sign-in', () => {
  it('answers 429 with the same headers past the limit; another address signs up; a minute later it is allowed again', async () => {
    const { call, advance } = clockedApp();
    const ip = '192.0.2.77';
    const signUp = (n: number, from = ip) => call('POST', '/api/auth/sign-up/email', { ip: from, body: { name: 'R', email: `rl${n}-${Date.now()}@example.com`, password: 'correct horse battery' } });
    for (let i = 0; i < 3; i++) expect((await signUp(i)).status).toBe(200);
    expectLimited(await signUp(3), 'auth', 3, 60);
    const signIn = await call('POST', '/api/auth/sign-in/email', { ip, body: { email: 'nobody@example.com', password: 'whatever whatever' } });
    expectLimited(signIn, 'auth', 3, 60);
    expect((await signUp(4, '192.0.2.78')).status).toBe(200);
    advance(20_000);
    const again = await call('POST', '/api/auth/sign-in/email', { ip, body: { email: 'nobody@example.com', password: 'whatever whatever' } });
    expect(again.status).toBe(401);
  });
});

describe('every principal has a bucket', () => {
  it('a dashboard session: per user (also before onboarding), and sessions and secret keys share the platform\'s', async () => {
    const p = await h.platform();
    const { call, advance } = clockedApp();
    for (let i = 0; i < 5; i++) {
      const csv = await call('GET', '/v1/exports/orders.csv', { cookie: p.cookie });
      expect(csv.status).toBe(200);
      expect(csv.headers.get('ratelimit-policy')).toBe('"platform";q=5;w=1');
    }
    expectLimited(await call('GET', '/v1/exports/orders.csv', { cookie: p.cookie }), 'user', 5, 1);
    // The sessions used up the platform's bucket: its secret key waits too.
    expectLimited(await call('GET', '/v1/me', { key: p.secretKey }), 'platform', 5, 1);
    advance(1_000);
    expect((await call('GET', '/v1/exports/orders.csv', { cookie: p.cookie })).status).toBe(200);

    const u = await h.signUp();
    for (let i = 0; i < 5; i++) expect((await call('GET', '/v1/me', { cookie: u.cookie })).status).toBe(200);
    expectLimited(await call('GET', '/v1/me', { cookie: u.cookie }), 'user', 5, 1);
  });

  it('three secret keys of one platform share one bucket', async () => {
    const p = await h.platform();
    const keys = [p.secretKey];
    for (let i = 0; i < 2; i++) {
      // Only a dashboard session creates keys (docs/decisions.md, "Keys and secrets").
      const rolled = await h.request('POST', '/v1/developers/keys', { cookie: p.cookie, headers: { origin: BASE } });
      expect(rolled.status).toBe(201);
      keys.push(rolled.body.key);
    }
    const { call } = clockedApp();
    for (const key of [keys[0], keys[1], keys[2], keys[0], keys[1]]) expect((await call('GET', '/v1/me', { key })).status).toBe(200);
    for (const key of keys) expectLimited(await call('GET', '/v1/me', { key }), 'platform', 5, 1);
  });

  it('publishable keys: one bucket per platform, apart from the secret keys\' (a public key cannot use up the platform\'s rate)', async () => {
    const p = await h.platform();
    const { call } = clockedApp();
    for (let i = 0; i < 4; i++) expect((await call('GET', '/v1/me', { key: p.publishableKey })).status).toBe(200);
    expect((await call('GET', '/v1/developers/keys', { key: p.publishableKey })).status).toBe(403);
    const limited = await call('GET', '/v1/me', { key: p.publishableKey });
    expectLimited(limited, 'publishable-key', 5, 1);
    expect((await call('GET', '/v1/me', { key: p.secretKey })).status).toBe(200);
  });
});

describe('invalid credentials, per client address, before the lookup', () => {
  it('answers 429 past the bound without reading a key; valid keys give their token back; other addresses unaffected', async () => {
    const p = await h.platform();
    const { call, advance } = clockedApp();
    const lookups = vi.spyOn(h.services.keys, 'authenticate');
    try {
      const made = () => `sk_live_${Math.random().toString(36).slice(2).padEnd(12, 'x')}${'Q'.repeat(20)}`;
      const ip = '203.0.113.140';
      // Valid keys from the address first: more of them than the bucket holds, none counted.
      for (let i = 0; i < 4; i++) expect((await call('GET', '/v1/me', { key: p.secretKey, ip })).status).toBe(200);
      lookups.mockClear();
      const statuses: number[] = [];
      for (let i = 0; i < 40; i++) statuses.push((await call('GET', '/v1/me', { key: made(), ip })).status);
      expect(statuses.slice(0, 3)).toEqual([401, 401, 401]);
      expect(new Set(statuses.slice(3))).toEqual(new Set([429]));
      expect(lookups).toHaveBeenCalledTimes(3);
      expectLimited(await call('GET', '/v1/me', { key: made(), ip }), 'credentials', 3, 3);
      // Admin tokens are guessed from the same bucket.
      expectLimited(await call('GET', '/metrics', { key: 'adm_not_the_token_0123456789', ip }), 'credentials', 3, 3);

      expect((await call('GET', '/v1/me', { key: made(), ip: '203.0.113.141' })).status).toBe(401);
      expect(lookups).toHaveBeenCalledTimes(4);
      advance(1_000);
      expect((await call('GET', '/v1/me', { key: made(), ip })).status).toBe(401);
      expect((await call('GET', '/v1/me', { key: made(), ip })).status).toBe(429);
      expect(lookups).toHaveBeenCalledTimes(5);
    } finally {
      lookups.mockRestore();
    }
  });
});

describe('IPv6 clients', () => {
  it('are counted by their /64; an IPv4-mapped address counts as its IPv4', async () => {
    const { call } = clockedApp();
    const read = (ip: string) => call('GET', '/v1/checkout/sessions/cs_live_nope', { ip });
    for (const ip of ['2001:db8:1:2::1', '2001:db8:1:2::2', '2001:db8:1:2:abcd::3']) expect((await read(ip)).status).toBe(404);
    expectLimited(await read('2001:db8:1:2:ffff:ffff:ffff:fffe'), 'public', 3, 3);
    expect((await read('2001:db8:1:3::1')).status).toBe(404);

    for (let i = 0; i < 3; i++) expect((await read('::ffff:198.51.100.90')).status).toBe(404);
    expectLimited(await read('198.51.100.90'), 'public', 3, 3);
  });
});

describe('the password routes share the sign-in bucket', () => {
  it('verify-password and change-password are counted with sign-in (and answer 404: the product does not use them)', async () => {
    const u = await h.signUp();
    const { call } = clockedApp();
    const ip = '192.0.2.90';
    const wrong = { password: 'not the password at all' };
    expect((await call('POST', '/api/auth/sign-in/email', { ip, body: { email: u.email, ...wrong } })).status).toBe(401);
    expect((await call('POST', '/api/auth/verify-password', { ip, body: wrong })).status).toBe(404);
    expect((await call('POST', '/api/auth/change-password', { ip, body: { currentPassword: wrong.password, newPassword: 'another long password' } })).status).toBe(404);
    expectLimited(await call('POST', '/api/auth/verify-password', { ip, body: wrong }), 'auth', 3, 60);
    expectLimited(await call('POST', '/api/auth/change-password', { ip, body: { currentPassword: wrong.password, newPassword: 'another long password' } }), 'auth', 3, 60);
    expectLimited(await call('POST', '/api/auth/sign-in/email', { ip, body: { email: u.email, password: u.password } }), 'auth', 3, 60);
  });
});

describe('the limiter itself', () => {
  it('keeps at most maxKeys buckets, dropping full ones first', () => {
    let t = 0;
    const limiter = createRateLimiter({ now: () => t, maxKeys: 3 });
    const policy = { name: 'x', perSecond: 1, burst: 1 };
    for (const k of ['a', 'b', 'c']) expect(limiter.take(k, policy).allowed).toBe(true);
    t = 5_000;
    expect(limiter.take('d', policy).allowed).toBe(true);
    expect(limiter.size()).toBeLessThanOrEqual(3);
    expect(limiter.take('d', policy).allowed).toBe(false);
  });
});
