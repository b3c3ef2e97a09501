/**
 * The one way the pages talk to the API: same origin, JSON, the session cookie, and an Idempotency-Key on
 * every POST/DELETE so a double click or a retried request never creates two of anything.
 * Errors become ApiError: show `message` to people, branch on `code`.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly param?: string,
    readonly requestId?: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

type Method = 'GET' | 'POST' | 'DELETE';

export type Query = Record<string, string | number | undefined | null>;

export function withQuery(path: string, query?: Query): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

export async function request<T>(method: Method, path: string, body?: unknown, opts: { idempotencyKey?: string } = {}): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (method !== 'GET') {
    headers['Idempotency-Key'] = opts.idempotencyKey ?? crypto.randomUUID();
    if (body !== undefined) headers['Content-Type'] = 'application/json';
  }
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers,
      credentials: 'include',
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, 'network_error', 'Could not reach Trisettle. Check your connection and try again.');
  }
  const text = await res.text();
  let data: unknown = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = null;
    }
  }
  if (!res.ok) throw toApiError(res.status, data, res.headers.get('x-request-id') ?? undefined);
  return data as T;
}

function toApiError(status: number, data: unknown, requestId?: string): ApiError {
  const err = (data as { error?: { code?: string; message?: string; param?: string; request_id?: string } } | null)?.error;
  if (err && typeof err === 'object') {
    return new ApiError(status, err.code ?? 'unknown', err.message ?? 'Something went wrong.', err.param, err.request_id ?? requestId);
  }
  // better-auth answers {code, message} at the top level.
  const flat = data as { code?: string; message?: string } | null;
  if (flat?.message) return new ApiError(status, (flat.code ?? 'unknown').toLowerCase(), flat.message, undefined, requestId);
  const fallback = status >= 500 ? 'Trisettle had a problem answering. Try again in a moment.' : `The request failed (HTTP ${status}).`;
  return new ApiError(status, status === 404 ? 'not_found' : 'unknown', fallback, undefined, requestId);
}

export const api = {
  get: <T>(path: string, query?: Query) => request<T>('GET', withQuery(path, query)),
  post: <T>(path: string, body?: unknown, opts?: { idempotencyKey?: string }) => request<T>('POST', path, body ?? {}, opts),
  del: <T>(path: string) => request<T>('DELETE', path),
};

export function errorMessage(err: unknown): string {
  if (err instanceof ApiError) return err.message;
  if (err instanceof Error) return err.message;
  return 'Something went wrong.';
}
