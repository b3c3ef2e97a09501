import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/lib/logger.js';
import { BASE, cookieFrom, createHarness, type Harness } from '../helpers/harness.js';

const EVIL = 'https://evil.example';
const onboardBody = {
  name: 'Acme Market',
  platform_wallet: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
  chain_id: 84532,
  platform_fee_bps: 500,
  default_reserve_bps: 1000,
};

let h: Harness;
let ipSeq = 0;
/** A fresh client address per call, so that only the rate-limit test meets the rate limit. */
const nextIp = () => `198.51.100.${++ipSeq}`;
const signIn = (email: string, password: string, headers: Record<string, string> = {}) =>
  h.request('POST', '/api/auth/sign-in/email', { body: { email, password }, headers: { origin: BASE, 'x-forwarded-for': nextIp(), ...headers } });

beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h?.close();
});

describe('session cookie', () => {
  it('is HttpOnly and SameSite=Lax, and not Secure on a devnet over http', async () => {
    const u = await h.signUp();
    const res = await signIn(u.email, u.password);
    expect(res.status).toBe(200);
    const cookie = res.headers.getSetCookie().find((c) => c.includes('session_token='));
    expect(cookie).toBeDefined();
    expect(cookie).toMatch(/;\s*HttpOnly/i);
    expect(cookie).toMatch(/;\s*SameSite=Lax/i);
    expect(cookie).toMatch(/;\s*Path=\//i);
    expect(cookie).not.toMatch(/;\s*Secure/i);
  });

  it('is Secure (with the __Secure- prefix) in production', async () => {
    const prod = await createHarness({ config: { env: 'production' } });
    try {
      const res = await prod.request('POST', '/api/auth/sign-up/email', {
        body: { name: 'P', email: 'prod@example.com', password: 'correct horse battery' },
        headers: { origin: BASE },
      });
      expect(res.status).toBe(200);
      const cookie = res.headers.getSetCookie().find((c) => c.includes('session_token='));
      expect(cookie).toMatch(/^__Secure-/);
      expect(cookie).toMatch(/;\s*Secure/i);
      expect(cookie).toMatch(/;\s*HttpOnly/i);
      expect(cookie).toMatch(/;\s*SameSite=Lax/i);
      const me = await prod.request('GET', '/v1/me', { cookie: cookieFrom(res.headers) });
      expect(me.status).toBe(200);
      expect(me.body.auth_kind).toBe('session');
    } finally {
      await prod.close();
    }
  });
});

describe('sign-in', () => {
  it('answers an unknown user and a wrong password identically', async () => {
    const u = await h.signUp();
    const wrong = await signIn(u.email, 'not the password at all');
    const unknown = await signIn('nobody-here@example.com', 'not the password at all');
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(wrong.status);
    expect(unknown.body).toEqual(wrong.body);
    expect(wrong.headers.getSetCookie().filter((c) => /session_token=[^;]/.test(c))).toEqual([]);
  });

  it('rate-limits sign-in attempts from one address (429 after 10 a minute), other addresses unaffected', async () => {
    const u = await h.signUp();
    const attacker = { 'x-forwarded-for': '203.0.113.77' };
    for (let i = 0; i < 10; i++) {
      const res = await signIn(u.email, `guess number ${i}!`, attacker);
      expect(res.status).toBe(401);
    }
    const limited = await signIn(u.email, 'guess number 10!', attacker);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('ratelimit-policy')).toBe('"auth";q=10;w=60');
    expect(limited.body.error.code).toBe('rate_limited');
    // Even the right password is refused from that address while the window lasts.
    expect((await signIn(u.email, u.password, attacker)).status).toBe(429);
    // The count lives in the database, so every instance shares it.
    expect(await h.count('rateLimit')).toBeGreaterThan(0);
    expect((await signIn(u.email, u.password, { 'x-forwarded-for': '203.0.113.78' })).status).toBe(200);
  });
});

describe('sign-in rate limit without a proxy (TRUST_PROXY_HOPS=0, the default)', () => {
  it('counts by the TCP peer: a client cannot step around the limit by writing X-Forwarded-For', async () => {
    const direct = await createHarness({ config: { trustProxyHops: 0 } });
    try {
      const u = await direct.signUp();
      // @hono/node-server hands each request its socket as c.env.incoming. The client also tries the internal header.
      const from = (peer: string, forwardedFor: string, password: string) =>
        direct.app.request(`${BASE}/api/auth/sign-in/email`, {
          method: 'POST',
          headers: { origin: BASE, 'content-type': 'application/json', 'x-forwarded-for': forwardedFor, 'x-trisettle-client-address': forwardedFor },
          body: JSON.stringify({ email: u.email, password }),
        }, { incoming: { socket: { remoteAddress: peer } } });
      for (let i = 0; i < 10; i++) expect((await from('203.0.113.50', `198.51.100.${i}`, `guess number ${i}!`)).status).toBe(401);
      expect((await from('203.0.113.50', '198.51.100.200', 'guess number 10!')).status).toBe(429);
      expect((await from('203.0.113.50', '198.51.100.201', u.password)).status).toBe(429);
      // Another peer is not affected by the first one's count, whatever it claims to be.
      expect((await from('203.0.113.51', '198.51.100.0', u.password)).status).toBe(200);
    } finally {
      await direct.close();
    }
  });
});

describe('sign-out', () => {
  it('ends the session on the server: the old cookie no longer works', async () => {
    const u = await h.signUp();
    const res = await signIn(u.email, u.password);
    const cookie = cookieFrom(res.headers);
    expect((await h.request('GET', '/v1/me', { cookie })).status).toBe(200);
    const sessions = await h.count('session');

    const out = await h.request('POST', '/api/auth/sign-out', { cookie, headers: { origin: BASE } });
    expect(out.status).toBe(200);
    expect(await h.count('session')).toBe(sessions - 1);

    const me = await h.request('GET', '/v1/me', { cookie });
    expect(me.status).toBe(401);
    expect(me.body.error.code).toBe('unauthenticated');
    const session = await h.request('GET', '/api/auth/get-session', { cookie });
    expect(session.body).toBeNull();
    // The account's other session (from sign-up) is untouched.
    expect((await h.request('GET', '/v1/me', { cookie: u.cookie })).status).toBe(200);
  });
});

describe('cross-site requests', () => {
  it('better-auth refuses its POSTs from an untrusted origin', async () => {
    const u = await h.signUp();
    const out = await h.request('POST', '/api/auth/sign-out', { cookie: u.cookie, headers: { origin: EVIL } });
    expect(out.status).toBe(403);
    expect((await h.request('GET', '/v1/me', { cookie: u.cookie })).status).toBe(200);

    const noOrigin = await h.request('POST', '/api/auth/sign-out', { cookie: u.cookie });
    expect(noOrigin.status).toBe(403);
    expect((await h.request('GET', '/v1/me', { cookie: u.cookie })).status).toBe(200);

    const loginCsrf = await signIn(u.email, u.password, { origin: EVIL });
    expect(loginCsrf.status).toBe(403);
    expect(loginCsrf.headers.getSetCookie().filter((c) => /session_token=[^;]/.test(c))).toEqual([]);

    const users = await h.count('user');
    const signUp = await h.request('POST', '/api/auth/sign-up/email', {
      body: { name: 'X', email: 'csrf@example.com', password: 'correct horse battery' },
      headers: { origin: EVIL, 'x-forwarded-for': nextIp() },
    });
    expect(signUp.status).toBe(403);
    expect(await h.count('user')).toBe(users);
  });

  it('refuses a session-authenticated /v1 mutation from another origin (403 forbidden, nothing written)', async () => {
    const u = await h.signUp();
    const platforms = await h.count('platforms');
    const refused: Record<string, string>[] = [{ origin: EVIL }, { origin: 'null' }, { origin: 'http://localhost:3001' }, { 'sec-fetch-site': 'cross-site' }];
    for (const headers of refused) {
      const res = await h.request('POST', '/v1/onboarding/self', { cookie: u.cookie, body: onboardBody, headers });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
    }
    expect(await h.count('platforms')).toBe(platforms);

    const same = await h.request('POST', '/v1/onboarding/self', { cookie: u.cookie, body: onboardBody, headers: { origin: BASE } });
    expect(same.status).toBe(201);

    const keys = await h.request('GET', '/v1/developers/keys', { cookie: u.cookie, headers: { origin: EVIL } });
    expect(keys.status).toBe(200);
    const secret = (keys.body.data as any[]).find((k) => k.kind === 'secret');
    const revoke = await h.request('POST', `/v1/developers/keys/${secret.id}/revoke`, { cookie: u.cookie, headers: { origin: EVIL } });
    expect(revoke.status).toBe(403);
    expect((await h.request('GET', '/v1/me', { key: same.body.secret_key })).status).toBe(200);
  });

  it('does not apply the origin rule to secret keys (not an ambient credential)', async () => {
    const p = await h.platform();
    const res = await h.request('POST', '/v1/webhooks/endpoints', { key: p.secretKey, headers: { origin: EVIL }, body: { url: 'http://127.0.0.1:9/h', subscribed_events: ['*'] } });
    expect(res.status).toBe(201);
  });

  it('trusts the configured dashboard origin when it is another server', async () => {
    const dash = 'https://dashboard.trisettle.example';
    const h2 = await createHarness({ config: { dashboardUrl: dash } });
    try {
      const u = await h2.signUp();
      const preflight = await h2.request('OPTIONS', '/v1/onboarding/self', {
        headers: { origin: dash, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      });
      expect(preflight.headers.get('access-control-allow-origin')).toBe(dash);
      expect(preflight.headers.get('access-control-allow-credentials')).toBe('true');
      const evil = await h2.request('OPTIONS', '/v1/onboarding/self', { headers: { origin: EVIL, 'access-control-request-method': 'POST' } });
      expect(evil.headers.get('access-control-allow-origin')).not.toBe(EVIL);

      expect((await h2.request('POST', '/v1/onboarding/self', { cookie: u.cookie, body: onboardBody, headers: { origin: EVIL } })).status).toBe(403);
      const ok = await h2.request('POST', '/v1/onboarding/self', { cookie: u.cookie, body: onboardBody, headers: { origin: dash } });
      expect(ok.status).toBe(201);
    } finally {
      await h2.close();
    }
  });
});

describe('the auth routes the product does not use', () => {
  // better-auth mounts these (and more); none is offered here. Each must answer 404 before better-auth sees it.
  const UNUSED: [string, string, unknown?][] = [
    ['GET', '/api/auth/callback/x'], ['POST', '/api/auth/callback/github', {}], ['POST', '/api/auth/sign-in/social', { provider: 'github' }],
    ['POST', '/api/auth/sign-in/oauth2', { providerId: 'x' }], ['POST', '/api/auth/link-social', { provider: 'github' }],
    ['POST', '/api/auth/unlink-account', { providerId: 'credential' }], ['POST', '/api/auth/get-access-token', { providerId: 'github' }],
    ['POST', '/api/auth/refresh-token', { providerId: 'github' }], ['GET', '/api/auth/list-accounts'], ['GET', '/api/auth/account-info'],
    ['GET', '/api/auth/list-sessions'], ['POST', '/api/auth/revoke-session', { token: 'x' }], ['POST', '/api/auth/revoke-sessions', {}],
    ['POST', '/api/auth/revoke-other-sessions', {}], ['POST', '/api/auth/update-user', { name: 'Mallory' }],
    ['POST', '/api/auth/delete-user', {}], ['GET', '/api/auth/delete-user/callback'], ['POST', '/api/auth/change-email', { newEmail: 'm@example.com' }],
    ['POST', '/api/auth/change-password', { currentPassword: 'x'.repeat(12), newPassword: 'y'.repeat(12) }],
    ['POST', '/api/auth/set-password', { newPassword: 'y'.repeat(12) }], ['POST', '/api/auth/verify-password', { password: 'x'.repeat(12) }],
    ['POST', '/api/auth/request-password-reset', { email: 'a@example.com' }], ['POST', '/api/auth/forget-password', { email: 'a@example.com' }],
    ['POST', '/api/auth/reset-password', { newPassword: 'y'.repeat(12) }], ['GET', '/api/auth/reset-password/tok'],
    ['GET', '/api/auth/verify-email?token=x'], ['POST', '/api/auth/send-verification-email', { email: 'a@example.com' }],
    ['GET', '/api/auth/ok'], ['GET', '/api/auth/error'], ['POST', '/api/auth/get-session', {}], ['GET', '/api/auth/sign-out'],
    ['GET', '/api/auth/sign-in/email'], ['GET', '/api/auth/get-session/'],
  ];

  it('answer 404 in the API\'s error shape, signed in or not, and log nothing at warn or above', async () => {
    const lines: string[] = [];
    const logger = createLogger('trace', 'devnet', { write: (s: string) => void lines.push(s) });
    const h2 = await createHarness({ logger });
    const consoleCalls = (['log', 'info', 'warn', 'error', 'debug'] as const).map((m) => vi.spyOn(console, m).mockImplementation(() => {}));
    try {
      const u = await h2.signUp();
      const sessions = await h2.count('session');
      for (const cookie of [undefined, u.cookie]) {
        for (const [method, path, body] of UNUSED) {
          const res = await h2.request(method, path, { body, cookie, headers: { origin: BASE, 'x-forwarded-for': nextIp() } });
          expect(res.status, `${method} ${path}`).toBe(404);
          expect(res.body.error.code).toBe('not_found');
        }
      }
      expect(await h2.count('session')).toBe(sessions);
      // What the product uses still works.
      expect((await h2.request('GET', '/api/auth/get-session', { cookie: u.cookie })).body.user.email).toBe(u.email);
      expect((await h2.request('POST', '/api/auth/sign-out', { cookie: u.cookie, headers: { origin: BASE } })).status).toBe(200);
      const levels = lines.map((l) => JSON.parse(l) as { level: number; msg: string });
      expect(levels.filter((l) => l.level >= 40)).toEqual([]);
      expect(levels.filter((l) => l.msg === 'request').length).toBeGreaterThanOrEqual(UNUSED.length * 2);
      for (const spy of consoleCalls) expect(spy).not.toHaveBeenCalled();
    } finally {
      for (const spy of consoleCalls) spy.mockRestore();
      await h2.close();
    }
  });
});

describe('sign-up with an email that already has an account', () => {
  it('says so plainly (docs/decisions.md: no email verification yet), creates nothing and leaves the account as it was', async () => {
    const u = await h.signUp();
    const users = await h.count('user');
    const sessions = await h.count('session');
    const again = await h.request('POST', '/api/auth/sign-up/email', {
      body: { name: 'Mallory', email: u.email.toUpperCase(), password: 'a different password' },
      headers: { origin: BASE, 'x-forwarded-for': nextIp() },
    });
    expect(again.status).toBe(422);
    expect(again.body).toEqual({ code: 'USER_ALREADY_EXISTS_USE_ANOTHER_EMAIL', message: 'User already exists. Use another email.' });
    expect(again.headers.getSetCookie().filter((c) => /session_token=[^;]/.test(c))).toEqual([]);
    expect(await h.count('user')).toBe(users);
    expect(await h.count('session')).toBe(sessions);
    expect((await signIn(u.email, 'a different password')).status).toBe(401);
    expect((await signIn(u.email, u.password)).status).toBe(200);
  });
});

describe('logs', () => {
  it('never contain a secret key, a password or a cookie', async () => {
    const lines: string[] = [];
    const logger = createLogger('trace', 'devnet', { write: (s: string) => void lines.push(s) });
    const h2 = await createHarness({ logger });
    // Everything goes through pino: nothing is printed around it (where no redaction applies).
    const consoleCalls = (['log', 'info', 'warn', 'error', 'debug'] as const).map((m) => vi.spyOn(console, m).mockImplementation(() => {}));
    try {
      const password = 'pa55word-that-must-not-leak';
      const up = await h2.request('POST', '/api/auth/sign-up/email', {
        body: { name: 'Logger', email: 'logger@example.com', password },
        headers: { origin: BASE },
      });
      expect(up.status).toBe(200);
      await h2.request('POST', '/api/auth/sign-in/email', { body: { email: 'logger@example.com', password: `${password}-wrong` }, headers: { origin: BASE } });
      const signedIn = await h2.request('POST', '/api/auth/sign-in/email', { body: { email: 'logger@example.com', password }, headers: { origin: BASE } });
      const cookie = cookieFrom(signedIn.headers);
      const onboarded = await h2.request('POST', '/v1/onboarding/self', { cookie, body: onboardBody, idem: 'log-1' });
      expect(onboarded.status).toBe(201);
      const secretKey = onboarded.body.secret_key as string;
      await h2.request('GET', '/v1/me', { key: secretKey });
      await h2.request('GET', '/v1/me', { cookie });
      const rolled = await h2.request('POST', '/v1/developers/keys', { cookie, idem: 'log-2' });
      await h2.request('GET', '/v1/developers/keys', { key: secretKey, headers: { 'x-debug': secretKey } });
      await h2.request('GET', `/v1/me/${secretKey}`, { key: secretKey });
      await h2.request('GET', '/v1/checkout/sessions/cs_live_0123456789abcdefghijABCDEFGHIJ');
      await h2.request('GET', '/v1/me', { key: `sk_live_${'Z'.repeat(32)}` });
      await h2.request('POST', '/api/auth/sign-out', { cookie, headers: { origin: EVIL } });

      const text = lines.join('');
      expect(lines.length).toBeGreaterThan(5);
      expect(text).toContain('"msg":"request"');
      expect(text).toContain('/v1/onboarding/self');
      expect(text).not.toMatch(/sk_live_[0-9A-Za-z]{4}/);
      expect(text).not.toMatch(/cs_live_[0-9A-Za-z]{4}/);
      expect(text).not.toContain(secretKey);
      expect(text).not.toContain(rolled.body.key);
      expect(text).not.toContain(password);
      const sessionToken = cookie.split('=')[1]!.split('.')[0]!;
      expect(sessionToken.length).toBeGreaterThan(10);
      expect(text).not.toContain(sessionToken);
      expect(text).not.toContain(signedIn.body.token);
      expect(text.toLowerCase()).not.toContain('session_token=');
      expect(text).toContain('auth request refused');
      for (const spy of consoleCalls) expect(spy).not.toHaveBeenCalled();
    } finally {
      for (const spy of consoleCalls) spy.mockRestore();
      await h2.close();
    }
  });
});
