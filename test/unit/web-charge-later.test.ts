import { describe, expect, it } from 'vitest';
import { CreateOrderRequest } from '../../src/modules/orders/schemas.js';
import * as server from '../../src/modules/orders/schemas.js';
import { CreateSessionRequest } from '../../src/modules/checkout/schemas.js';
import {
  CAPTURE_WITHIN_DEFAULT_SECONDS, CAPTURE_WITHIN_MAX_SECONDS, CAPTURE_WITHIN_MIN_SECONDS, CHARGE_LATER_OFF,
  captureWithinSeconds, chargeLaterBody, chargeLaterError, describeWindow, type CaptureUnit,
} from '../../web/src/pages/dashboard/orders/charge-later.js';

const base = { merchant_id: 'shop_1', order_no: 'A-1', chain_id: 84532, token: 'USDC', amount: '10.00' };

describe('dashboard charge-later fields', () => {
  it('uses the API\'s limits and default for capture_within_seconds', () => {
    expect([CAPTURE_WITHIN_MIN_SECONDS, CAPTURE_WITHIN_MAX_SECONDS, CAPTURE_WITHIN_DEFAULT_SECONDS])
      .toEqual([server.CAPTURE_WITHIN_MIN_SECONDS, server.CAPTURE_WITHIN_MAX_SECONDS, server.CAPTURE_WITHIN_DEFAULT_SECONDS]);
    expect(CHARGE_LATER_OFF).toEqual({ enabled: false, within: '7', unit: 'days' });
    expect(captureWithinSeconds(CHARGE_LATER_OFF)).toEqual({ seconds: CAPTURE_WITHIN_DEFAULT_SECONDS });
  });

  it('accepts a whole number of hours or days exactly when the order and session schemas accept its seconds', () => {
    const typed: [string, CaptureUnit][] = [
      ['0', 'hours'], ['1', 'hours'], ['720', 'hours'], ['721', 'hours'], ['0', 'days'], ['1', 'days'], ['30', 'days'], ['31', 'days'],
      ['7', 'days'], [' 12 ', 'hours'], ['999999', 'hours'],
    ];
    for (const [within, unit] of typed) {
      const c = { enabled: true, within, unit };
      const seconds = Number(within.trim()) * (unit === 'days' ? 86_400 : 3_600);
      for (const schema of [CreateOrderRequest, CreateSessionRequest]) {
        const server = schema.safeParse({ ...base, capture_method: 'manual', capture_within_seconds: seconds }).success;
        expect(chargeLaterError(c) === null, `${within} ${unit}`).toBe(server);
        if (server) expect(chargeLaterBody(c)).toEqual({ capture_method: 'manual', capture_within_seconds: seconds });
      }
    }
    expect(chargeLaterError({ enabled: true, within: '721', unit: 'hours' })).toBe('At most 30 days (720 hours).');
    expect(chargeLaterError({ enabled: true, within: '0', unit: 'days' })).toBe('At least 1 hour.');
    // Not a whole number: refused before any request (36 hours is typed as such).
    for (const within of ['1.5', '-1', '', '1e3', '7 days', '0x10']) expect(chargeLaterError({ enabled: true, within, unit: 'days' }), within).toBe('A whole number of days.');
  });

  it('sends manual with the window when on, and nothing new when off (automatic, as before)', () => {
    expect(chargeLaterBody({ enabled: true, within: '3', unit: 'days' })).toEqual({ capture_method: 'manual', capture_within_seconds: 259_200 });
    expect(chargeLaterBody({ enabled: true, within: '36', unit: 'hours' })).toEqual({ capture_method: 'manual', capture_within_seconds: 129_600 });
    expect(chargeLaterBody({ enabled: false, within: 'garbage', unit: 'days' })).toEqual({});
    expect(chargeLaterError({ enabled: false, within: 'garbage', unit: 'days' })).toBeNull();
    expect(() => chargeLaterBody({ enabled: true, within: '0', unit: 'days' })).toThrow('At least 1 hour.');
  });

  it('states the window back in words', () => {
    expect(describeWindow({ within: '7', unit: 'days' })).toBe('7 days');
    expect(describeWindow({ within: '1', unit: 'days' })).toBe('1 day');
    expect(describeWindow({ within: '1', unit: 'hours' })).toBe('1 hour');
    expect(describeWindow({ within: '31', unit: 'days' })).toBeNull();
  });
});
