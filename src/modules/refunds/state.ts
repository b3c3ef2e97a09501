import type { RefundState } from '../../db/schema.js';
import type { Transitions } from '../../lib/transitions.js';

/**
 * Refund states (creation sets pending or requires_funding). "Chain wins": a Refunded log completes a refund the
 * service had already failed, because the router executed it; a failed or completed refund never fails again.
 * A pending refund needs funding when the reserve no longer covers it (another refund spent it first).
 */
export const REFUND_TRANSITIONS = {
  complete: { from: ['pending', 'requires_funding', 'failed'], to: 'completed' },
  fail: { from: ['pending', 'requires_funding'], to: 'failed' },
  need_funding: { from: ['pending'], to: 'requires_funding' },
} as const satisfies Transitions<RefundState, 'complete' | 'fail' | 'need_funding'>;
