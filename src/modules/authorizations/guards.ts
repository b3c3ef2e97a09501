import { AppError } from '../../lib/errors.js';
import { stateError } from '../../lib/transitions.js';
import type { OrderRow } from '../orders/repo.js';
import { ORDER_TRANSITIONS } from '../orders/state.js';

/**
 * Captures the service sends for one authorization, at most: a refused capture (paused token, blocklisted
 * recipient…) may be asked again, but each one the chain refuses after simulation costs the operator's gas.
 */
export const MAX_CAPTURE_ATTEMPTS = 3;

/**
 * A capture or a void needs an authorized order with nothing asked of it yet: one capture (all or part) or one
 * void per authorization; 409 invalid_state naming what stands in the way otherwise.
 */
export function guardOpenAuthorization(order: OrderRow, action: 'capture' | 'void'): void {
  if (order.state !== 'authorized') throw stateError(`Order ${order.id}`, ORDER_TRANSITIONS, order.state, action);
  if (order.capture_requested_at) {
    throw new AppError('invalid_state', `Order ${order.id} already has a capture requested (${order.capture_requested_at.toISOString()}); it is on its way to the chain.`);
  }
  if (order.void_requested_at) {
    throw new AppError('invalid_state', `Order ${order.id} already has a void requested (${order.void_requested_at.toISOString()}); the payer gets the authorization back.`);
  }
  if (action === 'capture' && order.capture_attempts >= MAX_CAPTURE_ATTEMPTS) {
    throw new AppError('invalid_state', `Order ${order.id}: ${order.capture_attempts} captures failed; void it (or let capture_before pass) to return the funds.`);
  }
}
