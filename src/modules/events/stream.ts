import { setTimeout as sleep } from 'node:timers/promises';
import type { Db } from '../../db/client.js';
import { AppError } from '../../lib/errors.js';
import { eventsRepo, type EventRow } from './repo.js';
import { serializeEvent } from './serialize.js';

/**
 * Open event streams (GET /v1/events/stream) are bounded: each holds a connection and reads the database once a
 * STREAM_POLL_MS, so a platform may hold PER_PLATFORM of them and the instance TOTAL; one more is 429
 * rate_limited (the open ones are unaffected). Each ends after STREAM_MAX_MS (the client reconnects with `after`),
 * so a revoked key's stream ends within that time and no stream outlives a deploy by long.
 */
export const STREAM_LIMITS = { perPlatform: 5, total: 100 };
export const STREAM_POLL_MS = 1_000;
export const STREAM_HEARTBEAT_MS = 15_000;
export const STREAM_MAX_MS = 5 * 60_000;
const PAGE = 100;

export type StreamSlots = { acquire(platformId: string): () => void; open(): { total: number; platforms: number } };

/** Counts of open streams in this process; `acquire` takes a slot or throws 429, its result gives it back (once). */
export function createStreamSlots(limits = STREAM_LIMITS): StreamSlots {
  const byPlatform = new Map<string, number>();
  let total = 0;
  return {
    acquire(platformId) {
      const mine = byPlatform.get(platformId) ?? 0;
      if (mine >= limits.perPlatform) throw new AppError('rate_limited', `At most ${limits.perPlatform} open event streams per platform; close one first.`);
      if (total >= limits.total) throw new AppError('rate_limited', 'Too many open event streams on this instance; retry shortly.', undefined, { 'Retry-After': '5' });
      byPlatform.set(platformId, mine + 1);
      total++;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        total--;
        const left = (byPlatform.get(platformId) ?? 1) - 1;
        if (left === 0) byPlatform.delete(platformId);
        else byPlatform.set(platformId, left);
      };
    },
    open: () => ({ total, platforms: byPlatform.size }),
  };
}

export type StreamMessage = { kind: 'event'; event: ReturnType<typeof serializeEvent> } | { kind: 'ping' };
export type StreamOptions = { signal: AbortSignal; pollMs?: number; heartbeatMs?: number; maxMs?: number };

/**
 * Where a stream starts: after the event named (404 if it is not this platform's, checked before the stream
 * opens), else after the last event of the feed now (only what happens from here on is sent).
 */
export async function streamStart(db: Db, platformId: string, after: string | undefined): Promise<EventRow | null> {
  if (after === undefined) return (await eventsRepo.lastInFeed(db, platformId)) ?? null;
  const anchor = await eventsRepo.findForPlatform(db, platformId, after);
  if (!anchor) throw new AppError('not_found', 'No such event: after must name an event of this platform.', 'after');
  return anchor;
}

/**
 * Sends the platform's events after `start` as they become final, oldest first (the order of GET /v1/events?after=),
 * each once, then a ping when nothing was sent for heartbeatMs; returns when `signal` aborts or after maxMs.
 */
export async function streamEvents(db: Db, platformId: string, start: EventRow | null, send: (m: StreamMessage) => Promise<void>, o: StreamOptions) {
  const pollMs = o.pollMs ?? STREAM_POLL_MS;
  const heartbeatMs = o.heartbeatMs ?? STREAM_HEARTBEAT_MS;
  const endAt = Date.now() + (o.maxMs ?? STREAM_MAX_MS);
  let anchor = start;
  let lastSent = Date.now();
  while (!o.signal.aborted && Date.now() < endAt) {
    const rows = await eventsRepo.listAfter(db, platformId, anchor, { limit: PAGE });
    for (const row of rows.slice(0, PAGE)) {
      if (o.signal.aborted) return;
      await send({ kind: 'event', event: serializeEvent(row) });
      anchor = row;
      lastSent = Date.now();
    }
    if (rows.length > PAGE) continue;
    if (Date.now() - lastSent >= heartbeatMs) {
      await send({ kind: 'ping' });
      lastSent = Date.now();
    }
    // The timer's abort listener is removed when it fires: a long stream adds none.
    await sleep(Math.min(pollMs, Math.max(0, endAt - Date.now())), undefined, { signal: o.signal }).catch(() => undefined);
  }
}
