import { describe, expect, it } from 'vitest';
import { eventObjectHref } from '../../web/src/pages/dashboard/webhooks/event-object-href.js';

describe('dashboard events: the Object cell links to the object\'s own page', () => {
  it('orders, refunds, subscriptions, merchants and endpoints link to their detail pages', () => {
    expect(eventObjectHref({ id: 'ord_3Qa9Zk2LmN8pRt5VwXy1', object: 'order' })).toBe('/dashboard/orders/ord_3Qa9Zk2LmN8pRt5VwXy1');
    expect(eventObjectHref({ id: 're_8fJ2mQ0aLx7cVt1nPz4R', object: 'refund', order_id: 'ord_x' })).toBe('/dashboard/refunds/re_8fJ2mQ0aLx7cVt1nPz4R');
    expect(eventObjectHref({ id: 'sub_1', object: 'subscription' })).toBe('/dashboard/subscriptions/sub_1');
    expect(eventObjectHref({ id: 'mch_1', object: 'merchant' })).toBe('/dashboard/merchants/mch_1');
    expect(eventObjectHref({ id: 'we_1', object: 'webhook_endpoint' })).toBe('/dashboard/webhooks/we_1');
  });
  it('a settlement has no detail page: the settlements list', () => {
    expect(eventObjectHref({ id: 'stl_1', object: 'settlement' })).toBe('/dashboard/settlements');
  });
  it('a checkout session links to its order', () => {
    expect(eventObjectHref({ id: 'cs_1', object: 'checkout_session', order_id: 'ord_9' })).toBe('/dashboard/orders/ord_9');
  });
  it('without an object field, the id prefix decides; an unknown prefix links nowhere', () => {
    expect(eventObjectHref({ id: 'ord_2' })).toBe('/dashboard/orders/ord_2');
    expect(eventObjectHref({ id: 're_2' })).toBe('/dashboard/refunds/re_2');
    expect(eventObjectHref({ id: 'xyz_2' })).toBeNull();
    expect(eventObjectHref({ object: 'test_ping', endpoint_id: 'we_1' })).toBeNull();
  });
  it('ids are encoded into the path', () => {
    expect(eventObjectHref({ id: 'ord_a/b', object: 'order' })).toBe('/dashboard/orders/ord_a%2Fb');
  });
  it('a test event\'s sample object gets no link: there is no such object', () => {
    expect(eventObjectHref({ id: 'ord_test_0011223344556677', object: 'order', test: true })).toBeNull();
    expect(eventObjectHref({ id: 'ord_test_0011223344556677', object: 'order' })).toBeNull();
    expect(eventObjectHref({ id: 'we_real', object: 'webhook_endpoint', test: true })).toBeNull();
    expect(eventObjectHref({ id: 'cs_test_1', object: 'checkout_session', order_id: 'ord_test_2' })).toBeNull();
    expect(eventObjectHref(null)).toBeNull();
  });
});
