import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/lib/logger.js';
import { BASE, createHarness, type Harness, type Res } from '../helpers/harness.js';

let h: Harness;
let user: Awaited<ReturnType<Harness['signUp']>>;
beforeAll(async () => {
  h = await createHarness();
  user = await h.signUp();
});
afterAll(async () => {
  await h?.close();
});

const validBody = {
  name: 'Acme Market',
  platform_wallet: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
  chain_id: 84532,
  platform_fee_bps: 500,
  default_reserve_bps: 1000,
};

/** The one error shape of the API, with X-Request-Id equal to the body's request_id. */
function expectError(res: Res, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(Object.keys(res.body)).toEqual(['error']);
  const err = res.body.error;
  expect(err.code).toBe(code);
  expect(typeof err.type).toBe('string');
  expect(typeof err.message).toBe('string');
  expect(err.message.length).toBeGreaterThan(0);
  for (const k of Object.keys(err)) expect(['type', 'code', 'message', 'param', 'request_id']).toContain(k);
  expect(err.request_id).toMatch(/^\S+$/);
  expect(res.headers.get('x-request-id')).toBe(err.request_id);
  return err as { type: string; code: string; message: string; param?: string; request_id: string };
}

async function expectNothingWritten<T>(fn: () => Promise<T>): Promise<T> {
  const before = [await h.count('platforms'), await h.count('api_keys'), await h.count('user'), await h.count('idempotency_keys')];
  const result = await fn();
  expect([await h.count('platforms'), await h.count('api_keys'), await h.count('user'), await h.count('idempotency_keys')]).toEqual(before);
  return result;
}

const onboard = (o: Parameters<Harness['request']>[2]) =>
  h.request('POST', '/v1/onboarding/self', { cookie: user.cookie, idem: `e-${Math.random()}`, ...o });

describe('request errors', () => {
  it('answers malformed JSON with 400 invalid_json', async () => {
    for (const raw of ['{"name":', '{name: "x"}', "{'a':1}", '[1,2', '']) {
      const res = await expectNothingWritten(() => onboard({ raw }));
      expectError(res, 400, 'invalid_json');
    }
  });

  it('answers wrong types with 422 validation_failed naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ ...validBody, chain_id: '84532' }, 'chain_id'],
      [{ ...validBody, platform_fee_bps: '500' }, 'platform_fee_bps'],
      [{ ...validBody, name: 42 }, 'name'],
      [{ ...validBody, platform_wallet: null }, 'platform_wallet'],
    ];
    for (const [body, param] of cases) {
      const res = await expectNothingWritten(() => onboard({ body }));
      const err = expectError(res, 422, 'validation_failed');
      expect(err.param).toBe(param);
      expect(err.type).toBe('invalid_request_error');
    }
  });

  it('answers a JSON body that is not an object with 422', async () => {
    for (const raw of ['[]', '"x"', '42', 'null']) {
      const res = await expectNothingWritten(() => onboard({ raw }));
      expectError(res, 422, 'validation_failed');
    }
  });

  it('answers an unknown field with 422 naming it', async () => {
    const res = await expectNothingWritten(() => onboard({ body: { ...validBody, is_admin: true } }));
    const err = expectError(res, 422, 'validation_failed');
    expect(err.param).toBe('is_admin');
    expect(err.message).toContain('is_admin');
  });

  it('answers a body over 32 KB with 413 payload_too_large, with or without Content-Length', async () => {
    const big = JSON.stringify({ ...validBody, name: 'x'.repeat(33 * 1024) });
    const withLength = await expectNothingWritten(() => onboard({ raw: big, headers: { 'content-length': String(Buffer.byteLength(big)) } }));
    expectError(withLength, 413, 'payload_too_large');

    // Chunked: no Content-Length, the limit is counted while reading.
    const streamed = await expectNothingWritten(async () => {
      const body = new ReadableStream({
        start(controller) {
          for (let i = 0; i < 40; i++) controller.enqueue(new TextEncoder().encode('x'.repeat(1024)));
          controller.close();
        },
      });
      const res = await h.app.request(`${BASE}/v1/onboarding/self`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', cookie: user.cookie },
        body,
        duplex: 'half',
      } as RequestInit);
      const text = await res.text();
      return { status: res.status, headers: res.headers, text, body: JSON.parse(text) } as Res;
    });
    expectError(streamed, 413, 'payload_too_large');

    const signUp = await expectNothingWritten(() =>
      h.request('POST', '/api/auth/sign-up/email', { raw: JSON.stringify({ name: 'x'.repeat(40_000), email: 'big@example.com', password: 'long enough pw' }), headers: { origin: BASE } }));
    expectError(signUp, 413, 'payload_too_large');
  });

  it('accepts a body just under the limit (the limit is not off by a kilobyte)', async () => {
    const u = await h.signUp();
    const body = JSON.stringify({ ...validBody, name: 'N' });
    const padded = body.replace('{', `{${' '.repeat(32 * 1024 - body.length - 1)}`);
    expect(Buffer.byteLength(padded)).toBe(32 * 1024 - 1);
    const res = await h.request('POST', '/v1/onboarding/self', { cookie: u.cookie, raw: padded });
    expect(res.status).toBe(201);
  });

  it('answers a non-JSON content type with 415', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonp']) {
      const res = await expectNothingWritten(() => onboard({ raw: JSON.stringify(validBody), headers: { 'content-type': type } }));
      expectError(res, 415, 'unsupported_media_type');
    }
    const withCharset = await h.request('POST', '/v1/onboarding/self', { raw: '{}', headers: { 'content-type': 'application/json; charset=utf-8' } });
    expect(withCharset.status).toBe(401);
  });

  it('answers an unknown route with a 404 in the error shape', async () => {
    const p = await h.platform();
    expectError(await h.request('GET', '/nope'), 404, 'not_found');
    expectError(await h.request('GET', '/v1/nope', { key: p.secretKey }), 404, 'not_found');
    expectError(await h.request('POST', '/v1/nope', { key: p.secretKey, body: {} }), 404, 'not_found');
    expectError(await h.request('DELETE', '/v1/me', { key: p.secretKey }), 404, 'not_found');
  });

  it('carries X-Request-Id on every response, keeping a safe id sent by the caller', async () => {
    const ok = await h.request('GET', '/health');
    expect(ok.headers.get('x-request-id')).toMatch(/^req_[0-9A-Za-z]{20}$/);
    const mine = await h.request('GET', '/v1/me', { headers: { 'x-request-id': 'client-trace-1234' } });
    expect(expectError(mine, 401, 'unauthenticated').request_id).toBe('client-trace-1234');
    for (const bad of ['<script>alert(1)</script>', 'short', 'x'.repeat(65), 'has space in it']) {
      const unsafe = await h.request('GET', '/v1/me', { headers: { 'x-request-id': bad } });
      expect(expectError(unsafe, 401, 'unauthenticated').request_id).toMatch(/^req_/);
    }
    // Responses built outside the app's context: better-auth's handler, the hosted pages, a 404, a 413.
    const auth = await h.request('GET', '/api/auth/get-session', { headers: { 'x-request-id': 'client-trace-auth' } });
    expect(auth.headers.get('x-request-id')).toBe('client-trace-auth');
    expect(auth.headers.get('x-content-type-options')).toBe('nosniff');
    const signIn = await h.request('POST', '/api/auth/sign-in/email', { body: { email: 'nobody@example.com', password: 'wrong-password-1' } });
    expect(signIn.status).toBeGreaterThanOrEqual(400);
    expect(signIn.headers.get('x-request-id')).toMatch(/^req_/);
    for (const res of [await h.request('GET', '/v1/nothing-here'), await h.request('POST', '/v1/orders', { raw: 'x'.repeat(40_000), headers: { 'content-type': 'application/json' } })]) {
      expect(res.headers.get('x-request-id')).toMatch(/^req_/);
      expect(res.headers.get('x-frame-options')).toBe('DENY');
    }
  });

  it('answers authentication failures in the error shape', async () => {
    expectError(await h.request('GET', '/v1/me'), 401, 'unauthenticated');
    expectError(await h.request('GET', '/v1/me', { headers: { authorization: 'Basic YTpi' } }), 401, 'unauthenticated');
  });
});

describe('unexpected failures', () => {
  it('masks an unexpected exception as a 500 without a stack, logs it with the request id, and stores no idempotent result', async () => {
    const lines: string[] = [];
    const logger = createLogger('info', 'devnet', { write: (s: string) => void lines.push(s) });
    const h2 = await createHarness({ logger });
    try {
      const secretDetail = 'connection to db.internal:5432 failed for user "svc" password "hunter2"';
      h2.app.post('/v1/boom', () => {
        throw new Error(secretDetail);
      });
      const p = await h2.platform();
      const res = await h2.request('POST', '/v1/boom', { key: p.secretKey, idem: 'boom-1', body: {} });
      const err = expectError(res, 500, 'internal');
      expect(err.type).toBe('api_error');
      expect(res.text).not.toContain('hunter2');
      expect(res.text).not.toMatch(/at .*\.(ts|js):\d+/);
      expect(res.text).not.toContain('Error:');
      expect(await h2.count('idempotency_keys')).toBe(0);

      const logged = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'unhandled error');
      expect(logged?.request_id).toBe(err.request_id);
      expect(logged?.err?.stack).toEqual(expect.any(String));

      // The database going away under a route that does not catch it is the same masked 500.
      await h2.database.close();
      const down = await h2.request('GET', '/v1/me', { key: p.secretKey });
      expectError(down, 500, 'internal');
      expect(down.text).not.toMatch(/destroyed|ECONN|kysely|pglite/i);
    } finally {
      await h2.close();
    }
  });
});
