import { describe, expect, it } from 'vitest';

/**
 * The hosted page's choice after a failed method: move on to the next one, or stop (paying another way would be
 * wrong). The web modules are loaded by path: they follow the bundler's resolution, not this project's NodeNext.
 */
type ApiErrorCtor = new (status: number, code: string, message: string) => Error;
const load = async () => {
  const api = '../../web/src/lib/api.js';
  const flows = '../../web/src/pages/checkout/flows/fallthrough.js';
  const { ApiError } = (await import(api)) as { ApiError: ApiErrorCtor };
  const { isFinal } = (await import(flows)) as { isFinal: (err: unknown) => boolean };
  return { ApiError, isFinal };
};

describe('checkout fall-through on gasless refusals', () => {
  it('moves on to approve + pay, permit or batched when gasless is refused, unavailable or too heavy', async () => {
    const { ApiError, isFinal } = await load();
    for (const [status, code] of [[422, 'gasless_refused'], [503, 'gasless_unavailable'], [422, 'gas_limit_exceeded'], [429, 'gasless_cap_reached'], [403, 'gasless_disabled'], [422, 'simulation_failed']] as const) {
      expect([code, isFinal(new ApiError(status, code, 'refused'))]).toEqual([code, false]);
    }
  });
  it('stops where another method could pay twice or cannot help', async () => {
    const { ApiError, isFinal } = await load();
    for (const [status, code] of [[409, 'order_not_payable'], [409, 'relay_in_flight'], [404, 'not_found']] as const) {
      expect([code, isFinal(new ApiError(status, code, 'final'))]).toEqual([code, true]);
    }
  });
});
