import http from 'node:http';
import https from 'node:https';
import { parseRetryAfter } from './schedule.js';
import { guardedLookup, parseWebhookUrl, UnsafeUrlError, type Resolver, type UrlPolicy } from './ssrf.js';

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

/** The answer's headers, bounded (count and length) before they are stored. */
function headersOf(raw: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw).slice(0, MAX_RESPONSE_HEADERS)) {
    if (value === undefined) continue;
    out[name] = (Array.isArray(value) ? value.join(', ') : value).slice(0, MAX_HEADER_VALUE).replace(/\u0000/g, '');
  }
  return out;
}

export type SendOptions = {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  policy: UrlPolicy;
  resolve?: Resolver;
  /**
   * A keep-alive agent of this endpoint (deliver.ts keeps one per endpoint and URL): sockets are reused only
   * for the endpoint they were opened for, each opened through the same guarded lookup. None: a fresh
   * connection per request.
   */
  agent?: http.Agent;
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

/**
 * The answer to an attempt: its status now (the duration is to the status line), reported once the body's first
 * RESPONSE_BODY_BYTES are read or it ends. The rest is drained (bounded) so a keep-alive socket can be reused.
 */
function readAnswer(res: http.IncomingMessage, durationMs: number, finish: (r: Answer, durationMs: number) => void, clearTimer: () => void) {
  const status = res.statusCode ?? 0;
  const ok = status >= 200 && status < 300;
  const error = ok ? null
    : status >= 300 && status < 400 ? `HTTP ${status}: redirects are not followed`
    : `HTTP ${status}`;
  const chunks: Buffer[] = [];
  let seen = 0;
  let reported = false;
  // Called by whichever of the first 4 KB, 'end' and 'close' comes first: the answer is built once.
  const done = () => {
    if (reported) return;
    reported = true;
    const responseBody = chunks.length === 0 ? '' : Buffer.concat(chunks).subarray(0, RESPONSE_BODY_BYTES).toString('utf8').replace(/\u0000/g, '');
    finish({ status, error, retryAfterMs: parseRetryAfter(res.headers['retry-after']), responseHeaders: headersOf(res.headers), responseBody }, durationMs);
  };
  res.on('data', (chunk: Buffer) => {
    if (seen < RESPONSE_BODY_BYTES) chunks.push(chunk);
    seen += chunk.length;
    if (seen >= RESPONSE_BODY_BYTES) done();
    if (seen > MAX_DRAIN_BYTES) res.destroy();
  });
  res.on('end', done);
  res.on('error', () => {});
  res.on('close', () => {
    clearTimer();
    done();
  });
}

/**
 * One POST, re-checked against the SSRF policy: a literal address here (node skips `lookup` for those),
 * a name in `guardedLookup` at connect time. Redirects are never followed (node's client does not; a 3xx is reported as is). The whole
 * exchange up to the response status is bounded by `timeoutMs`; the body of the response is drained
 * (bounded), its first 4 KB kept for the delivery inspector. No socket is reused across endpoints: a fresh connection, or the endpoint's own agent.
 */
export function postWebhook(o: SendOptions): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let url: URL;
  try {
    url = judgedUrl(o.url, o.policy);
  } catch (err) {
    return Promise.resolve({
      status: null, error: describe(err, false, o.timeoutMs), retryAfterMs: null, durationMs: elapsed(),
      requestUrl: o.url, requestHeaders: o.headers, responseHeaders: null, responseBody: null,
    });
  }
  const client = url.protocol === 'https:' ? https : http;
  const sentHeaders = { ...o.headers, 'Content-Length': String(Buffer.byteLength(o.body)) };
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    let timedOut = false;
    const finish = (r: Answer, durationMs = elapsed()) => {
      if (settled) return;
      settled = true;
      resolve({ ...r, durationMs, requestUrl: o.url, requestHeaders: sentHeaders });
    };
    const req = client.request(url, {
      method: 'POST',
      headers: sentHeaders,
      lookup: guardedLookup(o.policy, o.resolve) as never,
      agent: o.agent ?? false,
    });
    const timer = setTimeout(() => {
      timedOut = true;
      req.destroy(new Error('timeout'));
    }, o.timeoutMs);
    req.on('response', (res) => readAnswer(res, elapsed(), finish, () => clearTimeout(timer)));
    req.on('error', (err) => {
      clearTimeout(timer);
      finish({ status: null, error: describe(err, timedOut, o.timeoutMs), retryAfterMs: null, responseHeaders: null, responseBody: null });
    });
    req.end(o.body);
  });
}
