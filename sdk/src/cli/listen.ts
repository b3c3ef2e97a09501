import { randomInt } from 'node:crypto';
import { Trisettle } from '../client.js';
import { TrisettleError } from '../errors.js';
import { parseEventFilter } from './filter.js';
import { EventFollower } from './follow.js';
import { forwardEvent } from './forward.js';

export type ListenOptions = {
  apiBase: string;
  apiKey: string;
  forwardTo: string;
  /** `order.confirmed,refund.*`; absent: every event. */
  events?: string | undefined;
  /** Between polls, clamped to [MIN_INTERVAL_MS, MAX_INTERVAL_MS]. */
  intervalMs?: number | undefined;
  out: (line: string) => void;
  signal?: AbortSignal | undefined;
};

/**
 * A poll reads at most MAX_PAGES_PER_POLL (5) pages, so at the shortest interval a session makes at most
 * 10 requests a second, a tenth of a platform's default rate limit (100/s), whatever happens on the platform.
 */
export const MIN_INTERVAL_MS = 500;
export const MAX_INTERVAL_MS = 10_000;
/** The longest wait after a 429, a 5xx or no answer (doubling from the interval, or the Retry-After when longer). */
export const MAX_BACKOFF_MS = 30_000;

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A secret shaped like the service's endpoint secrets: whsec_ and 32 base62 characters (valid base64 for 24 bytes). */
export function sessionSecret(): string {
  return `whsec_${Array.from({ length: 32 }, () => BASE62[randomInt(62)]).join('')}`;
}

const sleep = (ms: number, signal?: AbortSignal) => new Promise<void>((resolve) => {
  const t = setTimeout(resolve, ms);
  signal?.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true });
});

const retryable = (err: unknown) => err instanceof TrisettleError && (err.status === 0 || err.status === 429 || err.status >= 500);

/** The wait after a failed poll: double the last (at least the interval), at least a Retry-After, at most MAX_BACKOFF_MS. */
export function backoff(err: TrisettleError, previous: number, interval: number): number {
  const hinted = Number(err.headers?.get('retry-after'));
  const doubled = Math.min(MAX_BACKOFF_MS, Math.max(interval, previous) * 2);
  return Number.isFinite(hinted) && hinted > 0 ? Math.min(MAX_BACKOFF_MS, Math.max(doubled, hinted * 1000)) : doubled;
}

const clock = () => new Date().toISOString().slice(11, 19);

/**
 * `trisettle listen`: follows the platform's events and POSTs each matching one to `forwardTo`, signed with a
 * secret made for this session, one log line per delivery. Runs until `signal` aborts; throws on a refused key.
 */
export async function listen(o: ListenOptions): Promise<void> {
  const filter = parseEventFilter(o.events);
  const interval = Math.min(MAX_INTERVAL_MS, Math.max(MIN_INTERVAL_MS, o.intervalMs ?? 1_000));
  const client = new Trisettle({ secretKey: o.apiKey, baseUrl: o.apiBase, maxRetries: 0, timeoutMs: 15_000 });
  const me = await client.me();
  const follower = new EventFollower((q) => client.events.list(q).then((p) => p));
  await follower.start();
  const secret = sessionSecret();
  o.out(`Ready: forwarding ${o.events ? `events matching ${o.events}` : 'every event'} of ${me.platform_id ?? 'this platform'} to ${o.forwardTo}`);
  o.out(`Webhook signing secret for this session: ${secret}`);
  o.out('(verify deliveries with it as you would the endpoint secret; Ctrl-C stops)');
  let wait = interval;
  while (!o.signal?.aborted) {
    try {
      for (const e of await follower.poll()) {
        if (!filter(e.type) || o.signal?.aborted) continue;
        const d = await forwardEvent(o.forwardTo, secret, e);
        o.out(`${clock()}  ${e.type.padEnd(28)} ${e.id}  → ${d.status ?? `no answer (${d.error})`}  ${d.ms} ms`);
      }
      wait = interval;
    } catch (err) {
      if (!retryable(err)) throw err;
      wait = backoff(err as TrisettleError, wait, interval);
      o.out(`${clock()}  ${(err as Error).message}; retrying in ${Math.round(wait / 1000)} s`);
    }
    await sleep(wait, o.signal);
  }
}
