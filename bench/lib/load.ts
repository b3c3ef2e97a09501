import autocannon from 'autocannon';
import { percentile, round } from './util.js';

export type LoadResult = {
  connections: number;
  seconds: number;
  ok: number;
  per_s: number;
  p50_ms: number | null;
  p99_ms: number | null;
  non_2xx: number;
  errors: number;
};

export type LoadSpec = {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** A fresh body per request (unique order_no …), or none. */
  body?: () => string;
  /** A fresh path per request (e.g. one of many session tokens). */
  path?: () => string;
  connections: number;
} & ({ seconds: number; amount?: undefined } | { /** This many requests, however long they take. */ amount: number; seconds?: undefined });

/**
 * Closed-loop HTTP load with autocannon (keep-alive, one request in flight per connection). Latencies are
 * taken from autocannon's per-response event in fractional milliseconds (its own histogram rounds to 1 ms)
 * and only for 2xx answers; throughput counts 2xx answers only.
 */
export async function load(spec: LoadSpec): Promise<LoadResult> {
  const latencies: number[] = [];
  const instance = autocannon({
    url: spec.url,
    connections: spec.connections,
    ...(spec.amount !== undefined ? { amount: spec.amount } : { duration: spec.seconds }),
    method: spec.method ?? 'GET',
    headers: spec.headers ?? {},
    requests: [{
      setupRequest: (req: any) => {
        if (spec.body) req.body = spec.body();
        if (spec.path) req.path = spec.path();
        return req;
      },
    }],
  });
  instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
    if (status >= 200 && status < 300) latencies.push(ms);
  });
  const r: any = await instance;
  const seconds = r.duration as number;
  return {
    connections: spec.connections,
    seconds: round(seconds, 2)!,
    ok: r['2xx'],
    per_s: round(r['2xx'] / seconds, 0)!,
    p50_ms: round(percentile(latencies, 50), 2),
    p99_ms: round(percentile(latencies, 99), 2),
    non_2xx: r.non2xx,
    errors: r.errors + r.timeouts,
  };
}
