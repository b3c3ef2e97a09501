import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { AppEnv, Principal } from '../../src/api/context.js';
import { onError } from '../../src/api/middleware/errors.js';
import { limitRelayRefusals } from '../../src/api/middleware/relay-refusals.js';
import { AppError } from '../../src/lib/errors.js';

/** A relay route that refuses (422) or accepts (202) as asked, behind the refusal bucket. */
function app(by: 'address' | 'caller') {
  const a = new Hono<AppEnv>();
  a.onError(onError);
  a.use('*', async (c, next) => {
    c.set('requestId', 'req_test');
    const platform = c.req.header('x-test-platform');
    const principal: Principal = platform ? { kind: 'secret', platformId: platform, keyId: 'key_x' } : { kind: 'public' };
    c.set('principal', principal);
    await next();
  });
  a.use('/relay', limitRelayRefusals({ perMinute: 3, trustProxyHops: 1, now: () => 1_000_000, by }));
  a.post('/relay', (c) => {
    if (c.req.query('ok') === '1') return c.json({ ok: true }, 202);
    throw new AppError('validation_failed', 'refused', 'signature');
  });
  return (ip: string, opts: { ok?: boolean; platform?: string } = {}) =>
    a.request(`/relay${opts.ok ? '?ok=1' : ''}`, { method: 'POST', headers: { 'x-forwarded-for': ip, ...(opts.platform ? { 'x-test-platform': opts.platform } : {}) } });
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
});
