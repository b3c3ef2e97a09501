/**
 * GET /v1/events/stream (server-sent events, what `trisettle listen` holds open), over a real HTTP server on the
 * app: the events after the start, oldest first, each once; the bounds on open streams (per platform, per
 * instance) tried by opening more; one request-log row per stream however long it stays open.
 */
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStreamSlots, STREAM_LIMITS } from '../../src/modules/events/stream.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { merchant } from '../helpers/factories.js';

let h: Harness;
let a: Awaited<ReturnType<Harness['platform']>>;
let b: Awaited<ReturnType<Harness['platform']>>;
let server: ServerType;
let base: string;

beforeAll(async () => {
  h = await createHarness();
  [a, b] = [await h.platform(), await h.platform({ name: 'Other' })];
  server = serve({ fetch: h.app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((r) => server.once('listening', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.close();
  await h.close();
});

type Frame = { event: string; id?: string; data: string };

/** Opens a stream and collects its frames (comments included as event ':'). */
async function open(key: string, query = '') {
  const stop = new AbortController();
  const res = await fetch(`${base}/v1/events/stream${query}`, { headers: { authorization: `Bearer ${key}` }, signal: stop.signal });
  const frames: Frame[] = [];
  let text = '';
  const reading = (async () => {
    if (!res.ok) return;
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        text += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = text.indexOf('\n\n')) >= 0) {
          const block = text.slice(0, end);
          text = text.slice(end + 2);
          const f: Frame = { event: 'message', data: '' };
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) f.event = ':';
            else if (line.startsWith('event: ')) f.event = line.slice(7);
            else if (line.startsWith('id: ')) f.id = line.slice(4);
            else if (line.startsWith('data: ')) f.data += line.slice(6);
          }
          frames.push(f);
        }
      }
    } catch { /* aborted */ }
  })();
  const close = async () => {
    stop.abort();
    await reading;
  };
  return { res, frames, close };
}

async function until(what: string, ok: () => boolean, ms = 10_000) {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * The follower feed, and so where a stream starts, holds back events of transactions not older than every writing
 * transaction still running on the server (pg_snapshot_xmin; decisions.md), in any database of it: on a shared
 * PostgreSQL another test file's open transaction can hold that horizon for a while. What this file asserts about
 * a start needs the platform's events so far inside the feed first.
 */
async function inFeed(platformId: string, ms = 60_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const r = await sql<{ ok: boolean }>`select not exists (select 1 from events where platform_id = ${platformId}
      and tx >= pg_snapshot_xmin(pg_current_snapshot())) as ok`.execute(h.db);
    if (r.rows[0]!.ok) return;
    if (Date.now() > deadline) throw new Error(`events of ${platformId} not in the feed within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('GET /v1/events/stream', () => {
  it('starts after the newest event, then sends each new event once, oldest first, as id/event/data', async () => {
    const before = await merchant(h, a.secretKey);
    await inFeed(a.platformId);
    const s = await open(a.secretKey);
    expect(s.res.status).toBe(200);
    expect(s.res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await until('ready', () => s.frames.length > 0);
    const newest = (await h.request('GET', '/v1/events?limit=1', { key: a.secretKey })).body.data[0].id;
    expect(s.frames[0]).toEqual({ event: 'ready', data: JSON.stringify({ after: newest }) });
    const made = [await merchant(h, a.secretKey), await merchant(h, a.secretKey), await merchant(h, a.secretKey)];
    await merchant(h, b.secretKey); // another platform's: never on this stream
    await until('three events', () => s.frames.filter((f) => f.event === 'merchant.created').length >= 3);
    await new Promise((r) => setTimeout(r, 1_500));
    await s.close();
    const events = s.frames.filter((f) => f.event === 'merchant.created').map((f) => JSON.parse(f.data));
    expect(events.map((e) => e.data.object.id)).toEqual(made.map((m) => m.id));
    expect(events.map((e) => e.data.object.id)).not.toContain(before.id);
    expect(s.frames.filter((f) => f.id).map((f) => f.id)).toEqual(events.map((e) => e.id));
    expect(events[0]).toMatchObject({ object: 'event', type: 'merchant.created', created_at: expect.any(String) });
  });

  it('with after (or Last-Event-ID) sends what came after that event, and refuses an event that is not this platform\'s with 404', async () => {
    const first = await merchant(h, a.secretKey);
    const [from] = (await h.request('GET', '/v1/events?limit=1', { key: a.secretKey })).body.data;
    expect(from.data.object.id).toBe(first.id);
    const second = await merchant(h, a.secretKey);
    await inFeed(a.platformId);
    for (const how of ['query', 'header'] as const) {
      const s = how === 'query' ? await open(a.secretKey, `?after=${from.id}`) : await (async () => {
        const stop = new AbortController();
        const res = await fetch(`${base}/v1/events/stream`, { headers: { authorization: `Bearer ${a.secretKey}`, 'last-event-id': from.id }, signal: stop.signal });
        const text = await readFor(res, 1_500);
        stop.abort();
        return { res, frames: [{ event: 'raw', data: text }], close: async () => undefined };
      })();
      if (how === 'query') {
        await until('the event after', () => s.frames.some((f) => f.event === 'merchant.created'));
        await s.close();
        expect(JSON.parse(s.frames.find((f) => f.event === 'merchant.created')!.data).data.object.id).toBe(second.id);
      } else {
        expect(s.frames[0]!.data).toContain(second.id);
        expect(s.frames[0]!.data).not.toContain(`"id":"${first.id}"`);
      }
    }
    const theirs = (await h.request('GET', '/v1/events?limit=1', { key: b.secretKey })).body.data[0].id;
    const refused = await fetch(`${base}/v1/events/stream?after=${theirs}`, { headers: { authorization: `Bearer ${a.secretKey}` } });
    expect(refused.status).toBe(404);
    expect(await refused.json()).toMatchObject({ error: { code: 'not_found', param: 'after' } });
    expect((await fetch(`${base}/v1/events/stream`)).status).toBe(401);
  });

  it(`holds at most ${STREAM_LIMITS.perPlatform} open streams per platform: one more is 429, another platform is unaffected, a closed one frees its slot`, async () => {
    const streams = [];
    for (let i = 0; i < STREAM_LIMITS.perPlatform; i++) streams.push(await open(a.secretKey));
    expect(streams.map((s) => s.res.status)).toEqual(streams.map(() => 200));
    const extra = await fetch(`${base}/v1/events/stream`, { headers: { authorization: `Bearer ${a.secretKey}` } });
    expect(extra.status).toBe(429);
    expect(await extra.json()).toMatchObject({ error: { code: 'rate_limited', message: expect.stringContaining('open event streams') } });
    const other = await open(b.secretKey);
    expect(other.res.status).toBe(200);
    await other.close();
    await streams.pop()!.close();
    await until('the slot is given back', () => h.services.events.openStreams().total <= STREAM_LIMITS.perPlatform - 1);
    const again = await open(a.secretKey);
    expect(again.res.status).toBe(200);
    for (const s of [...streams, again]) await s.close();
    await until('every slot given back', () => h.services.events.openStreams().total === 0);
  });

  it('is one request-log row however long it stays open, with no body kept for the stream', async () => {
    await h.services.requestLogs.flush();
    const s = await open(a.secretKey);
    await until('ready', () => s.frames.length > 0);
    await new Promise((r) => setTimeout(r, 3_500)); // three of the server's reads
    await s.close();
    const logs = await h.request('GET', '/v1/developers/request_logs?path=/v1/events/stream&limit=100', { key: a.secretKey });
    const rows = logs.body.data.filter((r: { request_id: string }) => r.request_id === s.res.headers.get('x-request-id'));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ method: 'GET', status: 200, response_body: null });
  });
});

describe('open stream slots (the per-instance bound)', () => {
  it('refuses past the total across platforms, and a release frees exactly one slot once', () => {
    const slots = createStreamSlots({ perPlatform: 2, total: 3 });
    const r1 = slots.acquire('p1');
    slots.acquire('p1');
    expect(() => slots.acquire('p1')).toThrow(/At most 2 open event streams per platform/);
    slots.acquire('p2');
    expect(() => slots.acquire('p3')).toThrow(/Too many open event streams/);
    r1();
    r1();
    expect(slots.open()).toEqual({ total: 2, platforms: 2 });
    slots.acquire('p3');
    expect(() => slots.acquire('p4')).toThrow(/Too many/);
  });
});

async function readFor(res: Response, ms: number): Promise<string> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const next = await Promise.race([reader.read(), new Promise<null>((r) => setTimeout(() => r(null), deadline - Date.now()))]);
    if (!next || next.done) break;
    text += decoder.decode(next.value, { stream: true });
  }
  await reader.cancel().catch(() => undefined);
  return text;
}
