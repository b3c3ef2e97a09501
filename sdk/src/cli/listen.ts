import { randomInt } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Trisettle } from '../client.js';
import { TrisettleError } from '../errors.js';
import type { Event } from '../types.js';
import { parseEventFilter } from './filter.js';
import { forwardEvent } from './forward.js';
import { readEventStream } from './stream.js';

export type ListenOptions = {
  apiBase: string;
  apiKey: string;
  forwardTo: string;
  /** `order.confirmed,refund.*`; absent: every event. */
  events?: string | undefined;
  out: (line: string) => void;
  signal?: AbortSignal | undefined;
  /** The least time between two connections (a stream the server ended at once is not reopened in a loop). */
  reconnectMs?: number | undefined;
};

export const RECONNECT_MS = 1_000;
/** The longest wait after a 429, a 5xx or no answer (doubling from RECONNECT_MS, or the Retry-After when longer). */
export const MAX_BACKOFF_MS = 30_000;
/** Ids remembered against a repeat (a safety net: the stream sends each event once, and reconnects after the last). */
export const SEEN_IDS = 10_000;

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A secret shaped like the service's endpoint secrets: whsec_ and 32 base62 characters (valid base64 for 24 bytes). */
export function sessionSecret(): string {
  return `whsec_${Array.from({ length: 32 }, () => BASE62[randomInt(62)]).join('')}`;
}

const retryable = (err: unknown) => err instanceof TrisettleError && (err.status === 0 || err.status === 429 || err.status >= 500);

/** The wait after a failed connection: double the last (at least `base`), at least a Retry-After, at most MAX_BACKOFF_MS. */
export function backoff(err: TrisettleError, previous: number, base: number): number {
  const hinted = Number(err.headers?.get('retry-after'));
  const doubled = Math.min(MAX_BACKOFF_MS, Math.max(base, previous) * 2);
  return Number.isFinite(hinted) && hinted > 0 ? Math.min(MAX_BACKOFF_MS, Math.max(doubled, hinted * 1000)) : doubled;
}

const clock = () => new Date().toISOString().slice(11, 19);

/** A bounded set of ids: the oldest go first (a Set iterates in insertion order). */
function seenSet() {
  const seen = new Set<string>();
  return (id: string) => {
    if (seen.has(id)) return false;
    seen.add(id);
    if (seen.size > SEEN_IDS) seen.delete(seen.values().next().value!);
    return true;
  };
}

/**
 * `trisettle listen`: holds GET /v1/events/stream open (one request for as long as the server keeps it, not one a
 * second) and POSTs each matching event to `forwardTo`, signed with a secret made for this session, one log line
 * per delivery. When the stream ends or breaks it reconnects after the last event read, so nothing is skipped or
 * read twice. Each connection's abort link to `signal` is removed when it ends: reconnecting adds no listener.
 * Runs until `signal` aborts; throws on a refused key.
 */
export async function listen(o: ListenOptions): Promise<void> {
  const filter = parseEventFilter(o.events);
  const signal = o.signal ?? new AbortController().signal;
  const base = o.reconnectMs ?? RECONNECT_MS;
  const me = await new Trisettle({ secretKey: o.apiKey, baseUrl: o.apiBase, maxRetries: 0, timeoutMs: 15_000 }).me();
  const secret = sessionSecret();
  const fresh = seenSet();
  let after: string | null = null;
  let announced = false;
  let wait = base;
  while (!signal.aborted) {
    const opened = Date.now();
    const conn = new AbortController();
    const stop = () => conn.abort();
    signal.addEventListener('abort', stop, { once: true });
    try {
      for await (const m of readEventStream({ apiBase: o.apiBase, apiKey: o.apiKey, after, signal: conn.signal })) {
        if (m.kind === 'ready') {
          after ??= m.after;
          if (!announced) {
            announced = true;
            o.out(`Ready: forwarding ${o.events ? `events matching ${o.events}` : 'every event'} of ${me.platform_id ?? 'this platform'} to ${o.forwardTo}`);
            o.out(`Webhook signing secret for this session: ${secret}`);
            o.out('(verify deliveries with it as you would the endpoint secret; Ctrl-C stops)');
          }
          continue;
        }
        const e: Event = m.event;
        after = e.id;
        if (!fresh(e.id) || !filter(e.type) || signal.aborted) continue;
        const d = await forwardEvent(o.forwardTo, secret, e);
        o.out(`${clock()}  ${e.type.padEnd(28)} ${e.id}  → ${d.status ?? `no answer (${d.error})`}  ${d.ms} ms`);
      }
      wait = base;
    } catch (err) {
      if (!retryable(err)) throw err;
      wait = backoff(err as TrisettleError, wait, base);
      o.out(`${clock()}  ${(err as Error).message}; reconnecting in ${Math.round(wait / 1000)} s`);
    } finally {
      signal.removeEventListener('abort', stop);
    }
    const pause = Math.max(0, opened + wait - Date.now());
    if (pause > 0) await sleep(pause, undefined, { signal }).catch(() => undefined);
  }
}
