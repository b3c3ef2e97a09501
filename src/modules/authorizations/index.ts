import type { OrderRow } from '../orders/repo.js';
import type { AuthorizationsDeps } from './deps.js';
import { captureOutcomeHandler, voidOutcomeHandler } from './outcomes.js';
import { requestCapture } from './request-capture.js';
import { requestVoid } from './request-void.js';
import { voidExpiredAuthorizations } from './void-expired.js';

/**
 * Charge later (issue 27): capture and void requests of manual orders, and the sweeper that voids authorizations
 * past capture_before; each goes out as an operator transaction (outbox). The chain's events move the orders
 * (orders/apply-authorized.ts, apply-captured.ts with apply-paid-many.ts, apply-voided.ts).
 */
export function createAuthorizationsService(deps: AuthorizationsDeps) {
  return {
    capture: <B>(platformId: string, id: string, body: { amount?: string | undefined }, answer: (o: OrderRow) => B) => requestCapture(deps, platformId, id, body, answer),
    void: <B>(platformId: string, id: string, answer: (o: OrderRow) => B) => requestVoid(deps, platformId, id, answer),
    voidExpired: (chainId: number, indexedUntil: Date, batch?: number) => voidExpiredAuthorizations(deps, chainId, indexedUntil, batch),
    outcomeHandlers: { capture: captureOutcomeHandler(deps), authorization_void: voidOutcomeHandler(deps) },
  };
}

export type AuthorizationsService = ReturnType<typeof createAuthorizationsService>;
