/** The dashboard page of each kind of object an event carries, by the `object` field or, failing that, the id prefix. */
const PAGE_OF: Record<string, (id: string) => string> = {
  order: (id) => `/dashboard/orders/${encodeURIComponent(id)}`,
  refund: (id) => `/dashboard/refunds/${encodeURIComponent(id)}`,
  subscription: (id) => `/dashboard/subscriptions/${encodeURIComponent(id)}`,
  merchant: (id) => `/dashboard/merchants/${encodeURIComponent(id)}`,
  settlement: () => '/dashboard/settlements',
  webhook_endpoint: (id) => `/dashboard/webhooks/${encodeURIComponent(id)}`,
};
const KIND_OF_PREFIX: Record<string, string> = { ord: 'order', re: 'refund', sub: 'subscription', mch: 'merchant', stl: 'settlement', we: 'webhook_endpoint' };

/**
 * Where the dashboard shows an event's object, or null when it has no page: a test event's sample (`test: true`,
 * ids like `ord_test_…`) names no real object. A checkout session has no page of its own: its order's page.
 */
export function eventObjectHref(object: Record<string, unknown> | null | undefined): string | null {
  if (!object || object.test === true) return null;
  if (object.object === 'checkout_session') return typeof object.order_id === 'string' && !isTestId(object.order_id) ? PAGE_OF.order!(object.order_id) : null;
  const id = typeof object.id === 'string' ? object.id : null;
  if (!id || isTestId(id)) return null;
  const kind = typeof object.object === 'string' && PAGE_OF[object.object] ? object.object : KIND_OF_PREFIX[id.slice(0, id.indexOf('_'))];
  return kind ? PAGE_OF[kind]!(id) : null;
}

const isTestId = (id: string) => /^[a-z]+_test_/.test(id);
