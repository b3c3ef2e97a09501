import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../src/app.js';
import { BASE, createHarness, type Harness } from '../helpers/harness.js';

/**
 * Issue 26 item 5: GET /openapi.json was rebuilt from every zod schema on each request (~58 ms of CPU, against
 * ~5 ms for /health), in the process that also indexes. It is built once, served from memory with an ETag, and
 * limited per client address like the other public reads.
 */
let h: Harness;
beforeAll(async () => {
  h = await createHarness({ config: { rateLimits: { perSecond: 100, burst: 100, publicPerSecond: 1, publicBurst: 3, authPerMinute: 10 } } });
});
afterAll(async () => {
  await h?.close();
});

const get = (app: ReturnType<typeof buildApp>, headers: Record<string, string> = {}, method = 'GET') =>
  app.request(`${BASE}/openapi.json`, { method, headers });

describe('GET /openapi.json', () => {
  it('builds the document once, however many requests ask for it, and serves the same bytes each time', async () => {
    const app = buildApp(h.services);
    const build = vi.spyOn(app, 'getOpenAPI31Document');
    const bodies = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const res = await get(app);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      bodies.add(await res.text());
    }
    expect(build).toHaveBeenCalledTimes(1);
    expect(bodies.size).toBe(1);
    const doc = JSON.parse([...bodies][0]!);
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths).length).toBeGreaterThan(20);
    expect(Object.keys(doc.webhooks).length).toBeGreaterThan(0);
  });

  it('sends a strong ETag and answers If-None-Match with 304 and no body', async () => {
    const app = buildApp(h.services);
    const first = await get(app);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    expect(first.headers.get('cache-control')).toBe('no-cache');
    expect((await get(app)).headers.get('etag')).toBe(etag);

    for (const ifNoneMatch of [etag!, `W/${etag}`, `"other", ${etag}`, '*']) {
      const res = await get(app, { 'if-none-match': ifNoneMatch });
      expect(res.status).toBe(304);
      expect(res.headers.get('etag')).toBe(etag);
      expect(await res.text()).toBe('');
    }
    const stale = await get(app, { 'if-none-match': '"an-older-document"' });
    expect(stale.status).toBe(200);
    expect((await stale.json()).openapi).toBe('3.1.0');
  });

  it('is limited per client address (the public bucket): 429 past its burst, HEAD counted, other addresses unaffected', async () => {
    const app = buildApp(h.services, { now: () => 1_000_000 });
    const ip = { 'x-forwarded-for': '198.51.100.61' };
    expect((await get(app, ip)).status).toBe(200);
    expect((await get(app, { ...ip, 'if-none-match': '*' })).status).toBe(304);
    expect((await get(app, ip, 'HEAD')).status).toBe(200);
    const limited = await get(app, ip);
    expect(limited.status).toBe(429);
    expect((await limited.json()).error.code).toBe('rate_limited');
    expect(limited.headers.get('ratelimit-policy')).toBe('"public";q=3;w=3');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await get(app, { 'x-forwarded-for': '198.51.100.62' })).status).toBe(200);
  });
});

describe('HEAD on a public read', () => {
  it('takes from the same bucket as GET (it runs the GET handler)', async () => {
    const app = buildApp(h.services, { now: () => 1_000_000 });
    const ip = { 'x-forwarded-for': '198.51.100.63' };
    const head = () => app.request(`${BASE}/v1/checkout/sessions/cs_live_nope`, { method: 'HEAD', headers: ip });
    for (let i = 0; i < 3; i++) expect((await head()).status).toBe(404);
    expect((await head()).status).toBe(429);
  });
});
