import { ApiError } from '../../../lib/api';
import type { Order } from '../../../lib/types';

export type CaptureRequest = 'capture' | 'void';

/**
 * A capture or void the service accepted (202) and is taking to the chain: the order stays `authorized`
 * until the transaction is mined at depth. The service says so on the order (a failed capture clears
 * `capture_requested_at` again), so every tab and a reload agree.
 */
export function captureRequest(o: Pick<Order, 'state' | 'capture_requested_at' | 'void_requested_at'>): CaptureRequest | null {
  if (o.state !== 'authorized') return null;
  if (o.void_requested_at) return 'void';
  return o.capture_requested_at ? 'capture' : null;
}

/**
 * One Idempotency-Key per intended request: a retry after a network failure or a 5xx reuses it (the
 * service answers the first outcome, never two captures), a refusal (4xx) makes the next attempt new.
 */
export function nextKey(current: string, err: unknown): string {
  return err instanceof ApiError && err.status >= 400 && err.status < 500 ? crypto.randomUUID() : current;
}
