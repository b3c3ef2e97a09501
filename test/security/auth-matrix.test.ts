import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, createHarness, type Harness, type ReqOpts } from '../helpers/harness.js';
import { fakeChain } from '../helpers/factories.js';
import { apiRoutes, fill, isAdmin, isPublic, type RouteDef } from './routes.js';
import { rowCounts } from './tables.js';

/**
 * Who may call what, generated over every route of the OpenAPI document: missing, malformed, unknown,
 * revoked, publishable and admin credentials, a signed-in account without a platform, a signed-out
 * session, and cross-origin or form posts with a session cookie. None of them may write anything.
 */
let h: Harness;
let P: Awaited<ReturnType<Harness['platform']>>;
let revoked: string;
let noPlatform: Awaited<ReturnType<Harness['signUp']>>;
let signedOut: string;
const ORIGIN = { origin: 'http://localhost:3000' };

beforeAll(async () => {
  const chain = fakeChain();
  h = await createHarness({ chains: chain.chains, config: chain.config });
  P = await h.platform();
  const rolled = await h.request('POST', '/v1/developers/keys', { cookie: P.cookie, headers: ORIGIN });
  revoked = rolled.body.key;
  expect((await h.request('POST', `/v1/developers/keys/${rolled.body.id}/revoke`, { cookie: P.cookie, headers: ORIGIN })).status).toBe(200);
  noPlatform = await h.signUp();
  const gone = await h.signUp();
  const out = await h.request('POST', '/api/auth/sign-out', { cookie: gone.cookie, headers: ORIGIN });
  expect(out.status).toBe(200);
  signedOut = gone.cookie;
}, 60_000);
afterAll(() => h?.close());

const RELAY_BODY = { from: '0x15d34AAf54267DB7D7c367839AAf71A00a2C6A65', valid_after: '0', valid_before: '1', nonce: `0x${'00'.repeat(32)}`, signature: `0x${'11'.repeat(65)}` };
/** Bodies the schemas accept, so a guard is what answers and not the validator. */
const VALID: Record<string, unknown> = {
  'POST /v1/onboarding/self': { name: 'Acme', platform_wallet: '0x90F79bf6EB2c4f870365E785982E1f101E93b906', chain_id: 84532, platform_fee_bps: 500, default_reserve_bps: 1000 },
  'POST /v1/onboarding/merchants': { external_id: 'm_auth', name: 'Shop', merchant_wallet: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC', chain_id: 84532 },
  'POST /v1/merchants/invitations': { external_id: 'i_auth', suggested_name: 'Shop', chain_id: 84532 },
  'POST /v1/orders': { merchant_id: 'm_auth', order_no: 'o_auth', chain_id: 84532, token: 'USDC', amount: '1.00' },
  'POST /v1/checkout/sessions': { merchant_id: 'm_auth', order_no: 's_auth', chain_id: 84532, token: 'USDC', amount: '1.00' },
  'POST /v1/subscriptions': { merchant_id: 'm_auth', chain_id: 84532, token: 'USDC', amount: '1.00', interval: 'month' },
  'POST /v1/refunds': { order_id: 'ord_doesnotmatter00000000' },
  'POST /v1/webhooks/endpoints': { url: 'http://127.0.0.1:9/h', subscribed_events: ['*'] },
  'POST /v1/webhooks/endpoints/{id}/replay': { since: '2026-01-01T00:00:00Z', until: '2026-01-02T00:00:00Z' },
  'POST /v1/webhooks/endpoints/{id}': { description: 'x' },
  'POST /v1/test_helpers/advance_time': { seconds: 60 },
  'POST /v1/events/test': { type: 'test.ping' },
  'POST /_/orders/{id}/fail': { reason: 'x' },
  'POST /v1/orders/{id}/relay': RELAY_BODY,
  'POST /v1/orders/{id}/deposit_address': { refund_address: '0x90F79bf6EB2c4f870365E785982E1f101E93b906' },
};
const call = (r: RouteDef, o: ReqOpts) =>
  h.request(r.method, fill(r.path, { id: 'ord_doesnotmatter00000000', token: 'moi_live_x' }), { ...(r.body || r.method === 'POST' ? { raw: JSON.stringify(VALID[r.key] ?? {}) } : {}), ...o });

const guarded = () => apiRoutes(h.app).filter((r) => !isPublic(r));
const sessionOnly = (r: RouteDef) => r.security.includes('session') && !r.security.includes('bearer');
const mutating = (r: RouteDef) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(r.method);

async function expectAll(routes: RouteDef[], o: ReqOpts | ((r: RouteDef) => ReqOpts), status: number | ((r: RouteDef) => number), code?: string | ((r: RouteDef) => string)) {
  const before = await rowCounts(h);
  for (const r of routes) {
    const res = await call(r, typeof o === 'function' ? o(r) : o);
    const want = typeof status === 'function' ? status(r) : status;
    expect(res.status, `${r.key}: ${res.text.slice(0, 200)}`).toBe(want);
    const c = typeof code === 'function' ? code(r) : code;
    if (c) expect(res.body.error.code, r.key).toBe(c);
  }
  const after = await rowCounts(h);
  delete after.session; delete before.session; // better-auth may refresh a session row on read; counts only
  expect(after).toEqual(before);
}

describe('every guarded route', () => {
  it('is guarded: all but the public reads and invitation completion need a credential', () => {
    const open = apiRoutes(h.app).filter(isPublic).map((r) => r.key).sort();
    expect(open).toEqual(['GET /health', 'GET /v1/checkout/sessions/{token}', 'POST /v1/checkout/sessions/{token}/relay', 'POST /v1/checkout/sessions/{token}/deposit_address', 'GET /v1/merchants/invitations/{token}', 'POST /v1/merchants/invitations/{token}/complete', 'GET /x402/{token}', 'GET /v1/subscriptions/authorize/{token}', 'POST /v1/subscriptions/authorize/{token}'].sort());
  });

  it('answers 401 unauthenticated without a credential', async () => {
    await expectAll(guarded(), {}, 401, 'unauthenticated');
  });

  it.each([
    ['an empty bearer', 'Bearer '],
    ['another scheme', `Basic ${Buffer.from('a:b').toString('base64')}`],
    ['a key with trailing junk', 'Bearer sk_live_abc def'],
    ['a well-formed unknown secret key', `Bearer sk_live_${'A'.repeat(32)}`],
    ['a well-formed unknown publishable key', `Bearer pk_live_${'A'.repeat(32)}`],
    ['a key of the wrong prefix', `Bearer whsec_${'A'.repeat(32)}`],
    ['a 10 KB token', `Bearer sk_live_${'A'.repeat(10_000)}`],
  ])('answers 401 to %s', async (_what, authorization) => {
    await expectAll(guarded(), { headers: { authorization } }, 401, 'unauthenticated');
  });

  it('answers 401 to a revoked secret key', async () => {
    await expectAll(guarded(), { key: revoked }, 401, 'unauthenticated');
  });

  it('answers 403 secret_key_required to the publishable key (session_required on session-only routes), except on GET /v1/me', async () => {
    await expectAll(guarded(), { key: P.publishableKey },
      (r) => (isAdmin(r) ? 401 : r.key === 'GET /v1/me' ? 200 : 403),
      (r) => (isAdmin(r) ? 'unauthenticated' : r.key === 'GET /v1/me' ? '' : sessionOnly(r) ? 'session_required' : 'secret_key_required'));
  });

  it('answers 403 session_required to a secret key on the routes only a dashboard session may call', async () => {
    expect(guarded().filter(sessionOnly).map((r) => r.key).sort()).toEqual(['POST /v1/developers/keys', 'POST /v1/onboarding/self']);
    await expectAll(guarded().filter(sessionOnly), { key: P.secretKey }, 403, 'session_required');
  });

  it('does not take the admin token as an API key, nor an API key as the admin token', async () => {
    await expectAll(guarded(), (r) => ({ key: isAdmin(r) ? P.secretKey : ADMIN_TOKEN }), 401, 'unauthenticated');
  });

  it('answers 401 to a signed-out session cookie (the session ended on the server)', async () => {
    await expectAll(guarded(), { cookie: signedOut, headers: ORIGIN }, 401, 'unauthenticated');
  });

  it('answers 403 forbidden to a signed-in account without a platform on every platform-scoped route', async () => {
    const scoped = guarded().filter((r) => !isAdmin(r) && r.security.includes('session') && !['GET /v1/me', 'POST /v1/onboarding/self'].includes(r.key));
    expect(scoped.length).toBeGreaterThanOrEqual(15);
    await expectAll(scoped, { cookie: noPlatform.cookie, headers: ORIGIN }, 403, 'forbidden');
  });
});

describe('cross-site use of the session cookie', () => {
  const sessionMutations = () => guarded().filter((r) => mutating(r) && r.security.includes('session'));

  it.each([
    ['another origin', { origin: 'https://evil.example' }],
    ['the null origin (sandboxed frame)', { origin: 'null' }],
    ['no Origin but Sec-Fetch-Site: cross-site', { 'sec-fetch-site': 'cross-site' }],
    ['a look-alike origin', { origin: 'http://localhost:3000.evil.example' }],
  ])('refuses every session mutation from %s with 403 and writes nothing', async (_what, headers) => {
    expect(sessionMutations().length).toBeGreaterThanOrEqual(10);
    await expectAll(sessionMutations(), { cookie: P.cookie, headers }, 403, 'forbidden');
  });

  it('refuses an HTML form post (text/plain or urlencoded) to every POST /v1 route with 415, writing nothing', async () => {
    // Forms can only GET or POST; a cross-site DELETE needs a CORS preflight, which only the dashboard origin passes.
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      await expectAll(apiRoutes(h.app).filter((r) => r.method === 'POST' && r.path.startsWith('/v1/')),
        { cookie: P.cookie, raw: 'a=1', headers: { ...ORIGIN, 'content-type': type } }, 415, 'unsupported_media_type');
    }
  });
});
