import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { getEventListeners } from 'node:events';
import { afterAll, describe, expect, it } from 'vitest';
import { TrisettleError } from '@trisettle/sdk';
import { parseEventFilter } from '../../sdk/src/cli/filter.js';
import { backoff, listen, MAX_BACKOFF_MS } from '../../sdk/src/cli/listen.js';
import { parseSse } from '../../sdk/src/cli/stream.js';

describe('server-sent events as the CLI reads them', () => {
  it('splits messages at blank lines, joins data lines, skips comments, keeps a partial message for the next chunk', () => {
    const buffer = { text: ': ping\n\nevent: ready\ndata: {"after":null}\n\nid: evt_1\nevent: order.confirmed\ndata: {"a":\ndata: 1}\r\n\r\nevent: x\ndata: par' };
    expect([...parseSse(buffer)]).toEqual([{ event: 'ready', data: '{"after":null}' }, { event: 'order.confirmed', data: '{"a":\n1}' }]);
    expect(buffer.text).toBe('event: x\ndata: par');
    buffer.text += 't\n\n';
    expect([...parseSse(buffer)]).toEqual([{ event: 'x', data: 'part' }]);
  });
});

/**
 * A stand-in for the service that ends every stream at once (as a proxy cutting idle connections would): listen
 * reconnects each time. Whatever the number of reconnects, its signal holds one abort listener (the current
 * connection's) and Node warns of none.
 */
describe('listen reconnecting many times', () => {
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(w.name);
  process.on('warning', onWarning);
  afterAll(() => void process.off('warning', onWarning));

  it('keeps the abort listeners flat and reconnects after the last event read', async () => {
    const afters: (string | null)[] = [];
    let n = 0;
    const server = http.createServer((req, res) => {
      const url = new URL(req.url!, 'http://x');
      if (url.pathname === '/v1/me') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"platform_id":"plat_1","auth_kind":"secret_key"}');
      if (url.pathname === '/hook') return void res.writeHead(200).end('ok');
      afters.push(url.searchParams.get('after'));
      n++;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`event: ready\ndata: {"after":${JSON.stringify(url.searchParams.get('after') ?? 'evt_0')}}\n\n`);
      if (n % 10 === 0) res.write(`id: evt_${n}\nevent: merchant.created\ndata: ${JSON.stringify({ id: `evt_${n}`, object: 'event', type: 'merchant.created', created_at: new Date().toISOString(), data: { object: {} } })}\n\n`);
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const stop = new AbortController();
    const counts: number[] = [];
    const lines: string[] = [];
    const done = listen({ apiBase: base, apiKey: 'sk_live_test', forwardTo: `${base}/hook`, out: (l) => lines.push(l), signal: stop.signal, reconnectMs: 0 });
    while (n < 200) {
      counts.push(getEventListeners(stop.signal, 'abort').length);
      await new Promise((r) => setTimeout(r, 5));
    }
    stop.abort();
    await done;
    server.close();
    expect(Math.max(...counts)).toBeLessThanOrEqual(1);
    expect(getEventListeners(stop.signal, 'abort').length).toBe(0);
    expect(warnings).not.toContain('MaxListenersExceededWarning');
    // The first connection starts at "now" (the server's ready says after evt_0); later ones after the last event read.
    expect(afters[0]).toBeNull();
    expect(afters[1]).toBe('evt_0');
    expect(afters[10]).toBe('evt_10');
    expect(afters[15]).toBe('evt_10');
    expect(lines.filter((l) => l.includes('merchant.created')).length).toBeGreaterThanOrEqual(19);
  });
});

describe('--events', () => {
  it('matches exact types and families, everything when absent', () => {
    const f = parseEventFilter('order.confirmed,refund.*');
    expect(['order.confirmed', 'refund.completed', 'refund.failed'].every(f)).toBe(true);
    expect(['order.failed', 'merchant.created', 'refundx.y'].some(f)).toBe(false);
    expect(parseEventFilter(undefined)('anything')).toBe(true);
    expect(parseEventFilter('*')('merchant.created')).toBe(true);
  });

  it('refuses a malformed pattern', () => {
    expect(() => parseEventFilter('order.*.x')).toThrow(/not an event type/);
    expect(() => parseEventFilter('ORDER')).toThrow(/not an event type/);
  });
});

describe('backoff after a 429, a 5xx or no answer', () => {
  const err = (status: number, retryAfter?: string) =>
    new TrisettleError({ message: 'x', status, type: 't', code: 'c', headers: new Headers(retryAfter ? { 'retry-after': retryAfter } : {}) });

  it('doubles from the reconnect interval up to the ceiling, and honours a longer Retry-After', () => {
    expect(backoff(err(503), 1_000, 1_000)).toBe(2_000);
    expect(backoff(err(503), 2_000, 1_000)).toBe(4_000);
    expect(backoff(err(503), 20_000, 1_000)).toBe(MAX_BACKOFF_MS);
    expect(backoff(err(429, '7'), 1_000, 1_000)).toBe(7_000);
    expect(backoff(err(429, '3600'), 1_000, 1_000)).toBe(MAX_BACKOFF_MS);
  });
});
