import { useEffect, useState } from 'react';
import { ApiError } from '../../lib/api';

export type CaptureRequest = 'capture' | 'void';

const key = (orderId: string) => `trisettle.capture.${orderId}`;

/**
 * A capture or void the service accepted (202) but has not confirmed on chain yet: the order stays
 * `authorized` until the transaction is mined at depth. Remembered for this tab (a reload keeps saying
 * "requested") and forgotten as soon as the order leaves `authorized`.
 */
export function useCaptureRequest(orderId: string, state: string | undefined) {
  const [requested, setRequested] = useState<CaptureRequest | null>(() => read(orderId));
  useEffect(() => {
    if (state && state !== 'authorized' && requested) {
      sessionStorage.removeItem(key(orderId));
      setRequested(null);
    }
  }, [state, requested, orderId]);
  const mark = (r: CaptureRequest) => {
    sessionStorage.setItem(key(orderId), r);
    setRequested(r);
  };
  return { requested: state === 'authorized' ? requested : null, mark };
}

function read(orderId: string): CaptureRequest | null {
  const v = typeof sessionStorage === 'undefined' ? null : sessionStorage.getItem(key(orderId));
  return v === 'capture' || v === 'void' ? v : null;
}

/**
 * One Idempotency-Key per intended request: a retry after a network failure or a 5xx reuses it (the
 * service answers the first outcome, never two captures), a refusal (4xx) makes the next attempt new.
 */
export function nextKey(current: string, err: unknown): string {
  return err instanceof ApiError && err.status >= 400 && err.status < 500 ? crypto.randomUUID() : current;
}
