/**
 * One error type for everything the API answers on purpose. Codes are data: the status of each
 * code lives in one table so routes cannot drift apart (DESIGN §3).
 */
export const ERROR_CODES = {
  invalid_json: { status: 400, type: 'invalid_request_error', message: 'The request body is not valid JSON.' },
  unauthenticated: { status: 401, type: 'authentication_error', message: 'Missing or invalid credentials.' },
  forbidden: { status: 403, type: 'permission_error', message: 'This credential may not perform this request.' },
  secret_key_required: { status: 403, type: 'permission_error', message: 'This endpoint requires a secret key (sk_live_…).' },
  session_required: { status: 403, type: 'permission_error', message: 'This endpoint requires a dashboard session (sign in); API keys may not call it.' },
  not_found: { status: 404, type: 'invalid_request_error', message: 'No such resource.' },
  conflict: { status: 409, type: 'invalid_request_error', message: 'The resource conflicts with an existing one.' },
  duplicate_idempotency_key: { status: 409, type: 'idempotency_error', message: 'This Idempotency-Key was already used with a different request.' },
  idempotency_key_in_use: { status: 409, type: 'idempotency_error', message: 'A request with this Idempotency-Key is still being processed.' },
  invitation_used: { status: 409, type: 'invalid_request_error', message: 'This invitation has already been used.' },
  order_not_payable: { status: 409, type: 'invalid_request_error', message: 'The order cannot be paid (already paid, expired or cancelled).' },
  deposits_unavailable: { status: 409, type: 'invalid_request_error', message: 'Deposit addresses are not offered on this chain (no DEPOSIT_FACTORY_ADDRESS_<chainId>).' },
  deposit_refund_address_mismatch: { status: 409, type: 'invalid_request_error', message: 'The order\'s deposit address was already made with another refund address; it cannot change.' },
  invalid_refund_address: { status: 400, type: 'invalid_request_error', message: 'This refund address cannot receive returned funds.' },
  relay_in_flight: { status: 409, type: 'invalid_request_error', message: 'A relay for this order or from this payer is already in flight.' },
  gasless_disabled: { status: 403, type: 'permission_error', message: 'Gasless payment is switched off on this deployment.' },
  key_limit_reached: { status: 409, type: 'invalid_request_error', message: 'The platform has the most active API keys allowed; revoke one first.' },
  invalid_state: { status: 409, type: 'invalid_request_error', message: 'The resource is not in a state that allows this operation.' },
  invitation_expired: { status: 410, type: 'invalid_request_error', message: 'This invitation has expired.' },
  session_expired: { status: 410, type: 'invalid_request_error', message: 'This checkout session has expired or was cancelled; it can no longer be paid.' },
  payload_too_large: { status: 413, type: 'invalid_request_error', message: 'The request body is too large.' },
  unsupported_media_type: { status: 415, type: 'invalid_request_error', message: 'Requests must send Content-Type: application/json.' },
  validation_failed: { status: 422, type: 'invalid_request_error', message: 'The request is not valid.' },
  unsupported_chain: { status: 422, type: 'invalid_request_error', message: 'This chain is not supported by this deployment.' },
  invalid_signature: { status: 422, type: 'invalid_request_error', message: 'The signature does not verify.' },
  invalid_authorization: { status: 422, type: 'invalid_request_error', message: 'The authorization does not match this order.' },
  payer_mismatch: { status: 422, type: 'invalid_request_error', message: 'The order is locked to another payer.' },
  simulation_failed: { status: 422, type: 'invalid_request_error', message: 'The payment would revert on chain.' },
  gasless_refused: { status: 422, type: 'invalid_request_error', message: 'Gasless payment is refused for this payer or this payment; pay another way.' },
  gas_limit_exceeded: { status: 422, type: 'invalid_request_error', message: 'The relay would need more gas than the relayer spends on one payment.' },
  amount_exceeds_refundable: { status: 422, type: 'invalid_request_error', message: 'The amount exceeds what is left to refund.' },
  rate_limited: { status: 429, type: 'rate_limit_error', message: 'Too many requests.' },
  gasless_cap_reached: { status: 429, type: 'rate_limit_error', message: 'The platform\'s daily gasless relay cap is reached.' },
  service_unavailable: { status: 503, type: 'api_error', message: 'The service is temporarily unavailable.' },
  gasless_unavailable: { status: 503, type: 'api_error', message: 'Gasless payment is unavailable for now; pay another way.' },
  internal: { status: 500, type: 'api_error', message: 'An internal error occurred.' },
} as const satisfies Record<string, { status: number; type: string; message: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

export class AppError extends Error {
  readonly status: number;
  readonly type: string;
  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly param?: string,
    readonly headers?: Record<string, string>,
  ) {
    super(message ?? ERROR_CODES[code].message);
    this.name = 'AppError';
    this.status = ERROR_CODES[code].status;
    this.type = ERROR_CODES[code].type;
  }
}

export const notFound = (what = 'resource') => new AppError('not_found', `No such ${what}.`);
export const invalid = (param: string, message: string) => new AppError('validation_failed', message, param);

export function errorBody(err: AppError, requestId: string) {
  return {
    error: {
      type: err.type,
      code: err.code,
      message: err.message,
      ...(err.param !== undefined ? { param: err.param } : {}),
      request_id: requestId,
    },
  };
}
