import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { AppEnv, Principal } from '../../src/api/context.js';
import { onError } from '../../src/api/middleware/errors.js';
import { limitRelayRefusals, markRefused } from '../../src/api/middleware/relay-refusals.js';
import { AppError } from '../../src/lib/errors.js';

/** A relay route that refuses (422) or accepts (202) as asked, behind the refusal bucket. */
function app(by: 'address' | 'caller' | 'end-client', platformPerMinute?: number) {
  const a = new Hono<AppEnv>();
  a.onError(onError);
  a.use('*', async (c, next) => {
    c.set('requestId', 'req_test');
    const platform = c.req.header('x-test-platform');
    const principal: Principal = platform ? { kind: 'secret', platformId: platform, keyId: 'key_x' } : { kind: 'public' };
    c.set('principal', principal);
    await next();
  });
  a.use('/relay', limitRelayRefusals({ perMinute: 3, trustProxyHops: 1, now: () => 1_000_000, by, ...(platformPerMinute ? { platformPerMinute } : {}) }));
  a.post('/relay', (c) => {
    if (c.req.query('ok') === '1') return c.json({ ok: true }, 202);
    if (c.req.query('refused200') === '1') {
      markRefused(c); // x402's success:false
      return c.json({ success: false }, 200);
    }
    throw new AppError('validation_failed', 'refused', 'signature');
  });
  return (ip: string, opts: { ok?: boolean; refused200?: boolean; platform?: string; endClient?: string } = {}) =>
    a.request(`/relay${opts.ok ? '?ok=1' : opts.refused200 ? '?refused200=1' : ''}`, { method: 'POST', headers: {
      'x-forwarded-for': ip, ...(opts.platform ? { 'x-test-platform': opts.platform } : {}), ...(opts.endClient ? { 'trisettle-client-address': opts.endClient } : {}),
    } });
}

describe('relay refusal bucket', () => {
  it('counts refusals per address, IPv6 by its /64; accepted relays cost nothing', async () => {
    const post = app('address');
    for (let i = 0; i < 5; i++) expect((await post('2001:db8:1:2::1', { ok: true })).status).toBe(202);
    for (let i = 0; i < 3; i++) expect((await post(`2001:db8:1:2::${i + 10}`)).status).toBe(422);
    const limited = await post('2001:db8:1:2:ffff::9');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBeTruthy();
    expect((await post('2001:db8:1:3::1')).status).toBe(422); // another /64
    expect((await post('192.0.2.7')).status).toBe(422);
  });

  it('on the secret-key route counts per platform, so one platform\'s backend does not limit another behind the same address', async () => {
    const post = app('caller');
    for (let i = 0; i < 3; i++) expect((await post('198.51.100.1', { platform: 'plt_a' })).status).toBe(422);
    expect((await post('198.51.100.1', { platform: 'plt_a' })).status).toBe(429);
    expect((await post('198.51.100.2', { platform: 'plt_a' })).status).toBe(429); // a new address does not help
    expect((await post('198.51.100.1', { platform: 'plt_b' })).status).toBe(422);
  });

  it('on the x402 facilitator counts per end client within the platform: 30 refusals for A do not stop B; A is 429 after its 3', async () => {
    const post = app('end-client');
    const server = '198.51.100.1'; // the platform's paywall: every request comes from it
    const answers = [];
    for (let i = 0; i < 30; i++) answers.push((await post(server, { platform: 'plt_a', endClient: '203.0.113.66' })).status);
    expect(answers.slice(0, 3)).toEqual([422, 422, 422]);
    expect(new Set(answers.slice(3))).toEqual(new Set([429]));
    expect((await post(server, { platform: 'plt_a', endClient: '203.0.113.7', ok: true })).status).toBe(202);
    expect((await post(server, { platform: 'plt_a', endClient: '203.0.113.7' })).status).toBe(422); // B's own budget is whole
    expect((await post(server, { platform: 'plt_a', endClient: '2001:db8:5:6::1' })).status).toBe(422);
    // Without the header the caller's own address is the end client.
    for (let i = 0; i < 3; i++) expect((await post(server, { platform: 'plt_a' })).status).toBe(422);
    expect((await post(server, { platform: 'plt_a' })).status).toBe(429);
    expect((await post('198.51.100.2', { platform: 'plt_a' })).status).toBe(422);
  });

  it('counts a 200 the route marks as refused (x402 success:false), and bounds the platform\'s total over its end clients', async () => {
    const post = app('end-client', 7);
    for (let i = 0; i < 3; i++) expect((await post('198.51.100.1', { platform: 'plt_a', endClient: '203.0.113.1', refused200: true })).status).toBe(200);
    expect((await post('198.51.100.1', { platform: 'plt_a', endClient: '203.0.113.1', refused200: true })).status).toBe(429);
    for (let i = 0; i < 3; i++) expect((await post('198.51.100.1', { platform: 'plt_a', endClient: '203.0.113.2' })).status).toBe(422);
    expect((await post('198.51.100.1', { platform: 'plt_a', endClient: '203.0.113.3' })).status).toBe(422); // the 7th of the platform
    expect((await post('198.51.100.1', { platform: 'plt_a', endClient: '203.0.113.4' })).status).toBe(429); // total spent: a fresh client too
    expect((await post('198.51.100.1', { platform: 'plt_b', endClient: '203.0.113.4' })).status).toBe(422); // another platform is not
  });

  it('refuses an end-client header that is not an IP address (422), and takes it from a secret key only', async () => {
    const post = app('end-client');
    expect((await post('198.51.100.1', { platform: 'plt_a', endClient: 'evil, 1.2.3.4' })).status).toBe(422);
    for (let i = 0; i < 3; i++) expect((await post('198.51.100.1', { platform: 'plt_a', endClient: '198.51.100.1' })).status).toBe(422); // it cost nothing
    // A public caller's header is ignored: it counts under its own address.
    for (let i = 0; i < 3; i++) expect((await post('192.0.2.9', { endClient: `203.0.113.${i + 20}` })).status).toBe(422);
    expect((await post('192.0.2.9', { endClient: '203.0.113.99' })).status).toBe(429);
  });
});
