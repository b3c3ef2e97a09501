import { randomBytes } from 'node:crypto';
import { EVENT_TYPES } from '../events/types.js';

export const TEST_EVENT_TYPE = 'test.ping';
/** What a test event may be: the ping, or any type the service emits (a sample object, `test: true`). */
export const TEST_EVENT_TYPES: readonly string[] = [TEST_EVENT_TYPE, ...EVENT_TYPES];

const testId = (prefix: string) => `${prefix}_test_${randomBytes(8).toString('hex')}`;
const STATES: Record<string, string> = {
  'order.confirmed': 'confirmed', 'order.failed': 'failed', 'order.expired': 'expired', 'order.authorized': 'authorized', 'order.voided': 'voided',
  'order.underpaid': 'pending_payment', 'order.overpaid': 'confirmed',
  'refund.completed': 'completed', 'refund.failed': 'failed', 'checkout.session.completed': 'completed', 'checkout.session.expired': 'expired',
  'subscription.created': 'pending', 'subscription.activated': 'active', 'subscription.past_due': 'past_due', 'subscription.canceled': 'canceled',
};

/**
 * The object of a test event of `type`: a sample of the resource the real event carries, with ids no real object
 * has (`ord_test_…`) and `test: true`, so a receiver can tell it from a real one and must not act on it.
 */
export function testEventObject(type: string, endpointId: string): Record<string, unknown> {
  const state = STATES[type];
  const family = type.slice(0, type.lastIndexOf('.'));
  const base = { test: true, ...(state ? { state } : {}) };
  switch (family) {
    case 'order': return { id: testId('ord'), object: 'order', order_no: 'test-order', amount: '10.00', token: 'USDC', chain_id: 84532, metadata: {}, ...base };
    case 'payment': return { object: 'payment_return', order_id: testId('ord'), deposit_address: '0x0000000000000000000000000000000000000001', refund_address: '0x0000000000000000000000000000000000000002', token_address: '0x0000000000000000000000000000000000000003', amount: '1000000', reason: 'late', tx_hash: `0x${'0'.repeat(64)}`, metadata: {}, test: true };
    case 'refund': return { id: testId('re'), object: 'refund', order_id: testId('ord'), amount: '1.00', ...base };
    case 'checkout.session': return { id: testId('cs'), object: 'checkout_session', order_id: testId('ord'), ...base };
    case 'subscription': return { id: testId('sub'), object: 'subscription', amount: '10.00', interval: 'month', ...base };
    case 'merchant': return { id: testId('mch'), object: 'merchant', external_id: 'test-merchant', name: 'Test merchant', ...base };
    case 'settlement': return { id: testId('stl'), object: 'settlement', ...base };
    case 'webhook_endpoint': return { id: endpointId, object: 'webhook_endpoint', status: 'disabled', ...base };
    default: return { object: 'test_ping', endpoint_id: endpointId, message: 'A test event sent from the Trisettle API.' };
  }
}
