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
};

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

function describe(err: unknown, timedOut: boolean, timeoutMs: number): string {
  if (timedOut) return `timeout: no response within ${timeoutMs} ms`;
  if (err instanceof UnsafeUrlError) return `blocked: ${err.message}`;
  const e = err as NodeJS.ErrnoException;
  return (e.code ? `${e.code}: ${e.message}` : e.message ?? 'request failed').slice(0, 300);
}

/**
 * One POST, re-checked against the SSRF policy: a literal address here (node skips `lookup` for those),
 * a name in `guardedLookup` at connect time. Redirects are never followed (node's client does not; a 3xx is reported as is). The whole
 * exchange up to the response status is bounded by `timeoutMs`; the body of the response is drained
 * (bounded) and discarded. No socket is reused across endpoints: a fresh connection, or the endpoint's own agent.
 */
export function postWebhook(o: SendOptions): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let url: URL;
  try {
    url = parseWebhookUrl(o.url, o.policy);
  } catch (err) {
    return Promise.resolve({ status: null, error: describe(err, false, o.timeoutMs), retryAfterMs: null, durationMs: elapsed() });
  }
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    let timedOut = false;
    const finish = (r: Omit<SendResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      resolve({ ...r, durationMs: elapsed() });
    };
    const req = client.request(url, {
      method: 'POST',
      headers: { ...o.headers, 'Content-Length': String(Buffer.byteLength(o.body)) },
      lookup: guardedLookup(o.policy, o.resolve) as never,
      agent: o.agent ?? false,
    });
    const timer = setTimeout(() => {
      timedOut = true;
      req.destroy(new Error('timeout'));
    }, o.timeoutMs);
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      const ok = status >= 200 && status < 300;
      const error = ok ? null
        : status >= 300 && status < 400 ? `HTTP ${status}: redirects are not followed`
        : `HTTP ${status}`;
      finish({ status, error, retryAfterMs: parseRetryAfter(res.headers['retry-after']) });
      let seen = 0;
      res.on('data', (chunk: Buffer) => {
        seen += chunk.length;
        if (seen > MAX_DRAIN_BYTES) res.destroy();
      });
      res.on('error', () => {});
      res.on('close', () => clearTimeout(timer));
    });
    req.on('error', (err) => {
      clearTimeout(timer);
      finish({ status: null, error: describe(err, timedOut, o.timeoutMs), retryAfterMs: null });
    });
    req.end(o.body);
  });
}
