import type { ApiErrorBody, ApiErrorCode, ApiErrorType } from './types.js';

/**
 * Every failed call throws a TrisettleError. Branch on `code` (stable), show `message` (for people),
 * quote `requestId` to support. `param` names the offending field of a validation_failed.
 */
export class TrisettleError extends Error {
  /** HTTP status; 0 when no response arrived (TrisettleConnectionError). */
  readonly status: number;
  readonly type: ApiErrorType | 'connection_error' | (string & {});
  readonly code: ApiErrorCode | 'connection_error' | 'unexpected_response' | (string & {});
  readonly param: string | undefined;
  readonly requestId: string | undefined;
  /** Response headers (Retry-After, X-Request-Id…), when a response arrived. */
  readonly headers: Headers | undefined;

  constructor(init: {
    message: string; status: number; type: string; code: string; param?: string | undefined; requestId?: string | undefined;
    headers?: Headers | undefined; cause?: unknown;
  }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'TrisettleError';
    this.status = init.status;
    this.type = init.type;
    this.code = init.code;
    this.param = init.param;
    this.requestId = init.requestId;
    this.headers = init.headers;
  }

  /** From an error response: the API's `{ error: {…} }` body, or whatever a proxy in between sent. */
  static fromResponse(res: Response, text: string): TrisettleError {
    const requestId = res.headers.get('x-request-id') ?? undefined;
    let body: Partial<ApiErrorBody> | undefined;
    try {
      body = JSON.parse(text) as Partial<ApiErrorBody>;
    } catch {
      body = undefined;
    }
    const e = body?.error;
    if (e && typeof e.code === 'string') {
      return new TrisettleError({
        message: e.message, status: res.status, type: e.type, code: e.code, param: e.param, requestId: e.request_id ?? requestId, headers: res.headers,
      });
    }
    return new TrisettleError({
      message: `Unexpected ${res.status} response${text ? `: ${text.slice(0, 200)}` : ''}`,
      status: res.status, type: 'api_error', code: 'unexpected_response', requestId, headers: res.headers,
    });
  }
}

/** No response arrived (refused, reset, timed out) after every retry. */
export class TrisettleConnectionError extends TrisettleError {
  constructor(message: string, cause?: unknown) {
    super({ message, status: 0, type: 'connection_error', code: 'connection_error', cause });
    this.name = 'TrisettleConnectionError';
  }
}
