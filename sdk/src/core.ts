import { createHmac, randomUUID } from 'node:crypto';
import { TrisettleConnectionError, TrisettleError } from './errors.js';
import { ListResult } from './pagination.js';
import type { Page } from './types.js';

export const SDK_VERSION = '0.1.0';

export type TrisettleOptions = {
  /** Secret key, sk_live_…: server side only. */
  secretKey: string;
  /** Where the API is served, e.g. https://api.example.com; default the TRISETTLE_API environment variable (none: an error). */
  baseUrl?: string;
  /** Retries after the first attempt (network errors, 409 idempotency_key_in_use, 429, 5xx). Default 3. */
  maxRetries?: number;
  /** First backoff step; doubles per retry up to 8 s, with jitter. Default 500 ms. */
  retryDelayMs?: number;
  /** Per-attempt timeout. Default 30 s. */
  timeoutMs?: number;
  /** A fetch of your own (proxies, tests). Default globalThis.fetch. */
  fetch?: typeof fetch;
};

export type RequestOptions = {
  /** Overrides the generated Idempotency-Key (POST and DELETE): pass your own to make a retry after a crash safe too. */
  idempotencyKey?: string;
  maxRetries?: number;
  timeoutMs?: number;
  signal?: AbortSignal;
};

type Method = 'GET' | 'POST' | 'DELETE';
/** Sees each attempt's response headers, or null for an attempt that got no response (SDK-internal). */
export type AttemptObserver = (headers: Headers | null) => void;
type Query = Record<string, string | number | boolean | undefined | null>;

const MAX_BACKOFF_MS = 8_000;
/** A Retry-After longer than this is not waited for: the error is thrown so the caller can decide. */
const MAX_RETRY_AFTER_MS = 60_000;

const sleep = (ms: number, signal?: AbortSignal) => new Promise<void>((resolve, reject) => {
  if (signal?.aborted) return reject(signal.reason);
  const t = setTimeout(resolve, ms);
  signal?.addEventListener('abort', () => { clearTimeout(t); reject(signal.reason); }, { once: true });
});

function retryAfterMs(headers: Headers | undefined): number | undefined {
  const v = headers?.get('retry-after');
  if (!v) return undefined;
  const secs = Number(v);
  if (Number.isFinite(secs)) return Math.max(0, secs * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** Worth another attempt with the same Idempotency-Key: the request may not have run, or may run differently now. */
function isRetryable(err: TrisettleError): boolean {
  return err.status === 429 || err.status >= 500 || (err.status === 409 && err.code === 'idempotency_key_in_use');
}

/** Transport, retries and idempotency; the resources are thin typed wrappers over `request`. */
export class Core {
  readonly baseUrl: string;
  readonly #secretKey: string;
  readonly #maxRetries: number;
  readonly #retryDelayMs: number;
  readonly #timeoutMs: number;
  readonly #fetch: typeof fetch;

  constructor(o: TrisettleOptions) {
    if (!o?.secretKey) throw new TypeError('Trisettle: secretKey is required (sk_live_…)');
    this.#secretKey = o.secretKey;
    const baseUrl = o.baseUrl ?? (typeof process === 'undefined' ? undefined : process.env.TRISETTLE_API);
    if (!baseUrl) throw new TypeError('Trisettle: baseUrl is required (the API\'s URL, as the start-up banner prints it); or set TRISETTLE_API');
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.#maxRetries = o.maxRetries ?? 3;
    this.#retryDelayMs = o.retryDelayMs ?? 500;
    this.#timeoutMs = o.timeoutMs ?? 30_000;
    this.#fetch = o.fetch ?? globalThis.fetch;
  }

  #url(path: string, query?: Query): string {
    const url = new URL(this.baseUrl + path);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== null) url.searchParams.set(k, String(v));
    return url.toString();
  }

  #backoff(attempt: number, err?: TrisettleError): number | undefined {
    const hinted = retryAfterMs(err?.headers);
    if (hinted !== undefined) return hinted <= MAX_RETRY_AFTER_MS ? hinted : undefined;
    const ceiling = Math.min(MAX_BACKOFF_MS, this.#retryDelayMs * 2 ** attempt);
    return ceiling / 2 + Math.random() * (ceiling / 2);
  }

  /**
   * One API call. POST and DELETE carry an Idempotency-Key (a UUID unless given) that every retry
   * reuses, so a retry after a lost response replays the stored answer instead of acting twice.
   */
  async request<T>(method: Method, path: string, o: RequestOptions & { query?: Query; body?: unknown; observe?: AttemptObserver; headers?: Record<string, string> } = {}): Promise<T> {
    const headers: Record<string, string> = {
      ...o.headers,
      Authorization: `Bearer ${this.#secretKey}`,
      Accept: 'application/json',
      'User-Agent': `trisettle-sdk-node/${SDK_VERSION}`,
    };
    if (o.body !== undefined) headers['Content-Type'] = 'application/json';
    if (method !== 'GET') headers['Idempotency-Key'] = o.idempotencyKey ?? randomUUID();
    const url = this.#url(path, o.query);
    const body = o.body === undefined ? undefined : JSON.stringify(o.body);
    const maxRetries = o.maxRetries ?? this.#maxRetries;
    const timeoutMs = o.timeoutMs ?? this.#timeoutMs;

    for (let attempt = 0; ; attempt++) {
      let res: Response;
      let text: string;
      try {
        const signal = o.signal ? AbortSignal.any([o.signal, AbortSignal.timeout(timeoutMs)]) : AbortSignal.timeout(timeoutMs);
        res = await this.#fetch(url, { method, headers, body, signal });
        text = await res.text();
      } catch (cause) {
        o.observe?.(null);
        if (o.signal?.aborted) throw o.signal.reason;
        const wait = this.#backoff(attempt);
        if (attempt < maxRetries && wait !== undefined) {
          await sleep(wait, o.signal);
          continue;
        }
        const why = cause instanceof Error ? cause.message : String(cause);
        throw new TrisettleConnectionError(`${method} ${path}: no response after ${attempt + 1} attempt(s) (${why})`, cause);
      }
      o.observe?.(res.headers);
      if (res.ok) return (text ? JSON.parse(text) : undefined) as T;
      const err = TrisettleError.fromResponse(res, text);
      const wait = isRetryable(err) && attempt < maxRetries ? this.#backoff(attempt, err) : undefined;
      if (wait === undefined) throw err;
      await sleep(wait, o.signal);
    }
  }

  /** A key derived from the secret key for `label` (HMAC-SHA256): the same on every instance holding the key. */
  deriveKey(label: string): Buffer {
    return createHmac('sha256', this.#secretKey).update(label).digest();
  }

  list<T>(path: string, params: Query & { cursor?: string | undefined } = {}, o: RequestOptions = {}): ListResult<T> {
    return new ListResult<T>((cursor) => this.request<Page<T>>('GET', path, { ...o, query: { ...params, cursor: cursor ?? params.cursor } }));
  }
}

export const segment = (v: string) => encodeURIComponent(v);
