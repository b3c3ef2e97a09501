import type { Dispatcher } from 'undici';
import { parseRetryAfter } from './schedule.js';
import { parseWebhookUrl, UnsafeUrlError, type UrlPolicy } from './ssrf.js';

export type SendResult = {
  /** HTTP status when a response arrived in time, else null. */
  status: number | null;
  /** Short reason for a failed attempt (never response bodies, never secrets); null on a 2xx. */
  error: string | null;
  durationMs: number;
  retryAfterMs: number | null;
  /** The attempt as sent and answered, for the delivery inspector (migration 027). */
  requestUrl: string;
  requestHeaders: Record<string, string>;
  responseHeaders: Record<string, string> | null;
  /** The first RESPONSE_BODY_BYTES of the answer, as UTF-8 text (NUL removed: PostgreSQL text cannot hold it). */
  responseBody: string | null;
};

type Answer = Pick<SendResult, 'status' | 'error' | 'retryAfterMs' | 'responseHeaders' | 'responseBody'>;

/** What an attempt row keeps besides its status (repo.ts AttemptDetail). */
export const detailOf = (r: SendResult) => ({
  requestUrl: r.requestUrl, requestHeaders: r.requestHeaders, responseHeaders: r.responseHeaders, responseBody: r.responseBody,
});

export const RESPONSE_BODY_BYTES = 4096;
const MAX_RESPONSE_HEADERS = 64;
const MAX_HEADER_VALUE = 1024;

/** The answer's raw headers (name, value, name, value… as undici hands them), bounded (count and length) before they are stored. */
function headersOf(raw: Buffer[]): Record<string, string> {
  const out: Record<string, string> = {};
  let kept = 0;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toString('latin1').toLowerCase();
    const value = raw[i + 1]!.toString('latin1').replace(/\u0000/g, '');
    if (name in out) out[name] = `${out[name]}, ${value}`.slice(0, MAX_HEADER_VALUE);
    else if (kept++ < MAX_RESPONSE_HEADERS) out[name] = value.slice(0, MAX_HEADER_VALUE);
  }
  return out;
}

export type SendOptions = {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  policy: UrlPolicy;
  /**
   * The keep-alive pool of this endpoint for an origin (agents.ts keeps one per endpoint and origin): sockets are
   * reused only for the endpoint they were opened for, each opened through the same guarded lookup.
   */
  pool: (origin: string) => Dispatcher;
};

const MAX_DRAIN_BYTES = 64 * 1024;

/** URLs already judged by parseWebhookUrl, per policy: the verdict on a string never changes (names are judged at connect). */
const judged = new WeakMap<UrlPolicy, Map<string, URL>>();
const MAX_JUDGED = 1_000;

/** parseWebhookUrl, remembered: a delivery run posts to the same few URLs thousands of times. */
function judgedUrl(raw: string, policy: UrlPolicy): URL {
  let urls = judged.get(policy);
  if (!urls) judged.set(policy, (urls = new Map()));
  let url = urls.get(raw);
  if (url === undefined) {
    url = parseWebhookUrl(raw, policy);
    if (urls.size >= MAX_JUDGED) urls.clear();
    urls.set(raw, url);
  }
  return url;
}

function describe(err: unknown, timedOut: boolean, timeoutMs: number): string {
  if (timedOut) return `timeout: no response within ${timeoutMs} ms`;
  if (err instanceof UnsafeUrlError) return `blocked: ${err.message}`;
  const e = err as NodeJS.ErrnoException;
  return (e.code ? `${e.code}: ${e.message}` : e.message ?? 'request failed').slice(0, 300);
}

const errorOf = (status: number) => (status >= 200 && status < 300 ? null
  : status >= 300 && status < 400 ? `HTTP ${status}: redirects are not followed`
  : `HTTP ${status}`);

/** The answer as it arrives: status and headers (when they came), then the body's first RESPONSE_BODY_BYTES. */
function answerOf() {
  let status: number | null = null;
  let durationMs = 0;
  let rawHeaders: Buffer[] = [];
  const chunks: Buffer[] = [];
  let seen = 0;
  return {
    status: () => status,
    head(statusCode: number, headers: Buffer[], ms: number) {
      status = statusCode;
      rawHeaders = headers;
      durationMs = ms;
    },
    /** Keeps what fits in RESPONSE_BODY_BYTES; returns the body's bytes seen so far. */
    data(chunk: Buffer): number {
      if (seen < RESPONSE_BODY_BYTES) chunks.push(chunk);
      return (seen += chunk.length);
    },
    /** The answer, once its status is known; the duration is to the status line. */
    built(): Answer & { durationMs: number } {
      const headers = headersOf(rawHeaders);
      const responseBody = chunks.length === 0 ? '' : Buffer.concat(chunks).subarray(0, RESPONSE_BODY_BYTES).toString('utf8').replace(/\u0000/g, '');
      return { status, error: errorOf(status!), retryAfterMs: parseRetryAfter(headers['retry-after']), responseHeaders: headers, responseBody, durationMs };
    },
  };
}

/**
 * One POST through the endpoint's pool (undici's dispatch: no streams), re-checked against the SSRF policy: a literal
 * address here (a socket skips `lookup` for those), a name in `guardedLookup` at connect time. Redirects are never
 * followed (a 3xx is reported as is). The whole exchange is bounded by `timeoutMs`, connecting included: the attempt
 * is reported as timed out then, and a request still waiting for its socket is aborted once it has one. The answer
 * (its status, headers and first 4 KB, kept for the delivery inspector) is reported once those 4 KB are read or the
 * body ends; the rest is drained (bounded) so the socket can be reused.
 */
export function postWebhook(o: SendOptions): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const sentHeaders = { ...o.headers, 'Content-Length': String(Buffer.byteLength(o.body)) };
  const failure = (err: unknown, timedOut: boolean): Answer & { durationMs: number } =>
    ({ status: null, error: describe(err, timedOut, o.timeoutMs), retryAfterMs: null, responseHeaders: null, responseBody: null, durationMs: elapsed() });
  let url: URL;
  try {
    url = judgedUrl(o.url, o.policy);
  } catch (err) {
    return Promise.resolve({ ...failure(err, false), requestUrl: o.url, requestHeaders: sentHeaders });
  }
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    let timedOut = false;
    let abort: ((err: Error) => void) | null = null;
    const answer = answerOf();
    // Reported once: by the first of the first 4 KB, the body's end, its failure and the timer.
    const finish = (r: Answer & { durationMs: number }) => {
      if (settled) return;
      settled = true;
      resolve({ ...r, requestUrl: o.url, requestHeaders: sentHeaders });
    };
    const timer = setTimeout(() => {
      timedOut = true;
      finish(answer.status() !== null ? answer.built() : failure(new Error('timeout'), true));
      abort?.(new Error('timeout'));
    }, o.timeoutMs);
    o.pool(url.origin).dispatch({ path: `${url.pathname}${url.search}`, method: 'POST', headers: sentHeaders, body: o.body }, {
      onConnect(a) {
        if (timedOut) return a(new Error('timeout'));
        abort = a;
      },
      onHeaders(statusCode, headers) {
        if (statusCode >= 200) answer.head(statusCode, headers as Buffer[], elapsed()); // a 1xx: the answer follows
        return true;
      },
      onData(chunk) {
        const seen = answer.data(chunk);
        if (seen >= RESPONSE_BODY_BYTES && !settled) finish(answer.built());
        if (seen > MAX_DRAIN_BYTES) abort?.(new Error('response body too large to drain'));
        return true;
      },
      onComplete() {
        clearTimeout(timer);
        finish(answer.built());
      },
      onError(err) {
        clearTimeout(timer);
        finish(answer.status() !== null ? answer.built() : failure(err, timedOut));
      },
    });
  });
}
