import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_ONLY_CHAIN, BASE, cookieFrom, createHarness, type Harness } from '../helpers/harness.js';

const WALLET = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
const valid = (over: Record<string, unknown> = {}) => ({
  name: 'Acme Market',
  platform_wallet: WALLET,
  chain_id: 84532,
  platform_fee_bps: 500,
  default_reserve_bps: 1000,
  ...over,
});

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(async () => {
  await h?.close();
});

describe('account → platform, end to end', () => {
  it('signs up, signs in, reads the session, onboards once and then calls with the secret key', async () => {
    const email = 'founder@example.com';
    const password = 'correct horse battery';
    const up = await h.request('POST', '/api/auth/sign-up/email', { body: { name: 'Founder', email, password }, headers: { origin: BASE } });
    expect(up.status).toBe(200);
    const userId = up.body.user.id as string;
    expect(up.body.user.email).toBe(email);
    expect(JSON.stringify(up.body)).not.toContain(password);

    const signIn = await h.request('POST', '/api/auth/sign-in/email', { body: { email, password }, headers: { origin: BASE } });
    expect(signIn.status).toBe(200);
    const cookie = cookieFrom(signIn.headers);
    expect(cookie).toMatch(/session_token=/);

    const session = await h.request('GET', '/api/auth/get-session', { cookie });
    expect(session.status).toBe(200);
    expect(session.body.user).toMatchObject({ id: userId, email });

    const before = await h.request('GET', '/v1/me', { cookie });
    expect(before.status).toBe(200);
    expect(before.body).toEqual({ user_id: userId, platform_id: null, platform_name: null, auth_kind: 'session', onboarded: false });

    // The wallet goes in lowercase and comes back EIP-55 checksummed.
    const res = await h.request('POST', '/v1/onboarding/self', { cookie, body: valid({ platform_wallet: WALLET.toLowerCase() }) });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'Acme Market',
      platform_wallet: WALLET,
      chain_id: 84532,
      platform_fee_bps: 500,
      default_reserve_bps: 1000,
    });
    expect(res.body.platform_id).toMatch(/^plt_[0-9A-Za-z]{20}$/);
    expect(res.body.secret_key).toMatch(/^sk_live_[0-9A-Za-z]{32}$/);
    expect(res.body.publishable_key).toMatch(/^pk_live_[0-9A-Za-z]{32}$/);
    const { secret_key: secretKey, platform_id: platformId } = res.body;

    const me = await h.request('GET', '/v1/me', { key: secretKey });
    expect(me.status).toBe(200);
    expect(me.body).toEqual({ user_id: userId, platform_id: platformId, platform_name: res.body.name, auth_kind: 'secret_key', onboarded: true });

    const after = await h.request('GET', '/v1/me', { cookie });
    expect(after.body).toEqual({ user_id: userId, platform_id: platformId, platform_name: res.body.name, auth_kind: 'session', onboarded: true });

    // Shown once: no later response carries the secret key.
    for (const r of [
      await h.request('GET', '/v1/developers/keys', { key: secretKey }),
      await h.request('GET', '/v1/developers/keys', { cookie }),
      me,
      after,
    ]) {
      expect(r.text).not.toContain(secretKey);
    }
  });

  it('accepts the bounds of basis points', async () => {
    const u = await h.signUp();
    const res = await h.request('POST', '/v1/onboarding/self', {
      cookie: u.cookie,
      body: valid({ platform_fee_bps: 10_000 - h.config.serviceFeeBps, default_reserve_bps: 10_000 }),
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ chain_id: 84532, platform_fee_bps: 9900, default_reserve_bps: 10_000 });
    const zero = await h.signUp();
    const res0 = await h.request('POST', '/v1/onboarding/self', { cookie: zero.cookie, body: valid({ platform_fee_bps: 0, default_reserve_bps: 0 }) });
    expect(res0.status).toBe(201);
  });

  it('refuses the main network (8453) with 422 unsupported_chain where the deployment runs only 84532, writing nothing', async () => {
    const u = await h.signUp();
    const platforms = await h.count('platforms');
    const keys = await h.count('api_keys');
    const res = await h.request('POST', '/v1/onboarding/self', { cookie: u.cookie, body: valid({ chain_id: 8453 }) });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'unsupported_chain', param: 'chain_id' });
    expect(await h.count('platforms')).toBe(platforms);
    expect(await h.count('api_keys')).toBe(keys);
    expect((await h.request('GET', '/v1/me', { cookie: u.cookie })).body.onboarded).toBe(false);
  });

  it('accepts 8453 on a deployment that runs it', async () => {
    const h2 = await createHarness({ chains: [{ ...API_ONLY_CHAIN, chainId: 8453 }] });
    try {
      const u = await h2.signUp();
      const res = await h2.request('POST', '/v1/onboarding/self', { cookie: u.cookie, body: valid({ chain_id: 8453 }) });
      expect(res.status).toBe(201);
      expect(res.body.chain_id).toBe(8453);
    } finally {
      await h2.close();
    }
  });
});

describe('onboarding validation (422, nothing written)', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['an unsupported chain', { chain_id: 1 }, 'chain_id'],
    ['a chain id as a string', { chain_id: '84532' }, 'chain_id'],
    ['negative platform fee', { platform_fee_bps: -1 }, 'platform_fee_bps'],
    ['platform fee above 10000', { platform_fee_bps: 10_001 }, 'platform_fee_bps'],
    ['fractional platform fee', { platform_fee_bps: 1.5 }, 'platform_fee_bps'],
    ['platform fee + service fee above 10000', { platform_fee_bps: 9901 }, 'platform_fee_bps'],
    ['negative reserve', { default_reserve_bps: -1 }, 'default_reserve_bps'],
    ['reserve above 10000', { default_reserve_bps: 10_001 }, 'default_reserve_bps'],
    ['a wallet that is not an address', { platform_wallet: '0x1234' }, 'platform_wallet'],
    ['a wallet with a wrong EIP-55 checksum', { platform_wallet: '0x90F79bf6EB2c4f870365E785982E1f101E93b907' }, 'platform_wallet'],
    ['the zero address', { platform_wallet: '0x0000000000000000000000000000000000000000' }, 'platform_wallet'],
    ['a blank name', { name: '   ' }, 'name'],
    ['a missing name', { name: undefined }, 'name'],
    ['an unknown field', { plan: 'gold' }, 'plan'],
  ];

  it.each(cases)('refuses %s', async (_label, over, param) => {
    const u = await h.signUp();
    const platforms = await h.count('platforms');
    const keys = await h.count('api_keys');
    const res = await h.request('POST', '/v1/onboarding/self', { cookie: u.cookie, body: valid(over) });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'validation_failed', param });
    expect(await h.count('platforms')).toBe(platforms);
    expect(await h.count('api_keys')).toBe(keys);
    const me = await h.request('GET', '/v1/me', { cookie: u.cookie });
    expect(me.body.onboarded).toBe(false);
  });

  it('checks the fee sum against the configured SERVICE_FEE_BPS, not a constant', async () => {
    const h2 = await createHarness({ config: { serviceFeeBps: 250 } });
    try {
      const u = await h2.signUp();
      const over = await h2.request('POST', '/v1/onboarding/self', { cookie: u.cookie, body: valid({ platform_fee_bps: 9751 }) });
      expect(over.status).toBe(422);
      expect(over.body.error.param).toBe('platform_fee_bps');
      const edge = await h2.request('POST', '/v1/onboarding/self', { cookie: u.cookie, body: valid({ platform_fee_bps: 9750 }) });
      expect(edge.status).toBe(201);
    } finally {
      await h2.close();
    }
  });
});

describe('one platform per account', () => {
  it('refuses a second onboarding with 409 conflict and keeps one platform', async () => {
    const u = await h.signUp();
    expect((await h.request('POST', '/v1/onboarding/self', { cookie: u.cookie, body: valid() })).status).toBe(201);
    const keys = await h.count('api_keys');
    const again = await h.request('POST', '/v1/onboarding/self', { cookie: u.cookie, body: valid({ name: 'Second' }) });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('conflict');
    const rows = await h.db.selectFrom('platforms').selectAll().where('user_id', '=', u.userId).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.name).toBe('Acme Market');
    expect(await h.count('api_keys')).toBe(keys);
  });

  it('lets exactly one of two concurrent onboardings win', async () => {
    const u = await h.signUp();
    const keys = await h.count('api_keys');
    const results = await Promise.all([
      h.request('POST', '/v1/onboarding/self', { cookie: u.cookie, body: valid({ name: 'One' }) }),
      h.request('POST', '/v1/onboarding/self', { cookie: u.cookie, body: valid({ name: 'Two' }) }),
      h.request('POST', '/v1/onboarding/self', { cookie: u.cookie, body: valid({ name: 'Three' }) }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    for (const r of results.filter((x) => x.status === 409)) expect(r.body.error.code).toBe('conflict');
    const rows = await h.db.selectFrom('platforms').selectAll().where('user_id', '=', u.userId).execute();
    expect(rows).toHaveLength(1);
    // The loser's transaction left no orphan keys: one secret and one publishable key were issued.
    expect(await h.count('api_keys')).toBe(keys + 2);
  });
});

describe('who may onboard', () => {
  it('needs a session: no credential is 401, a secret or publishable key is refused', async () => {
    const p = await h.platform();
    const platforms = await h.count('platforms');
    const anon = await h.request('POST', '/v1/onboarding/self', { body: valid() });
    expect(anon.status).toBe(401);
    expect(anon.body.error.code).toBe('unauthenticated');
    const bySecret = await h.request('POST', '/v1/onboarding/self', { key: p.secretKey, body: valid() });
    expect(bySecret.status).toBe(403);
    expect(bySecret.body.error.code).toBe('session_required');
    const byPublishable = await h.request('POST', '/v1/onboarding/self', { key: p.publishableKey, body: valid() });
    expect(byPublishable.status).toBe(403);
    expect(byPublishable.body.error.code).toBe('session_required');
    expect(await h.count('platforms')).toBe(platforms);
  });
});
