import { describe, expect, it } from 'vitest';
import type { RefundState } from '../../src/db/schema.js';
import { canMove, stateError } from '../../src/lib/transitions.js';
import { REFUND_TRANSITIONS } from '../../src/modules/refunds/state.js';
import { SETTLEMENT_TRANSITIONS } from '../../src/modules/settlements/state.js';

const ALL: RefundState[] = ['pending', 'requires_funding', 'completed', 'failed'];
const from = (trigger: keyof typeof REFUND_TRANSITIONS) => ALL.filter((s) => canMove(REFUND_TRANSITIONS, s, trigger));

describe('refund transition table', () => {
  it('only a pending refund can come to need funding (the worker finds the reserve spent)', () => {
    expect(from('need_funding')).toEqual(['pending']);
    expect(REFUND_TRANSITIONS.need_funding.to).toBe('requires_funding');
  });

  it('open refunds fail; the chain completes even a failed one; a completed refund never moves again', () => {
    expect(from('fail')).toEqual(['pending', 'requires_funding']);
    expect(from('complete')).toEqual(['pending', 'requires_funding', 'failed']);
    expect(Object.values(REFUND_TRANSITIONS).some((t) => (t.from as readonly RefundState[]).includes('completed'))).toBe(false);
  });

  it('a state error names the current state and the allowed ones', () => {
    const e = stateError('Refund re_1', REFUND_TRANSITIONS, 'completed', 'fail', 'cancelling');
    expect(e.code).toBe('invalid_state');
    expect(e.message).toBe('Refund re_1 is completed; cancelling needs it to be pending or requires_funding.');
  });
});

describe('settlement transition table', () => {
  it('a failed batch is still confirmed by BatchSettled (chain wins) but never fails twice', () => {
    expect(canMove(SETTLEMENT_TRANSITIONS, 'failed', 'confirm')).toBe(true);
    expect(canMove(SETTLEMENT_TRANSITIONS, 'confirmed', 'confirm')).toBe(false);
    expect(canMove(SETTLEMENT_TRANSITIONS, 'failed', 'fail')).toBe(false);
  });
});
