import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.close());

describe('OpenAPI document', () => {
  it('describes the webhook and event routes with named schemas and their security', async () => {
    const res = await h.request('GET', '/openapi.json');
    expect(res.status).toBe(200);
    const { paths, components } = res.body;
    for (const [path, method] of [
      ['/v1/webhooks/endpoints', 'post'], ['/v1/webhooks/endpoints', 'get'], ['/v1/webhooks/endpoints/{id}', 'get'],
      ['/v1/webhooks/endpoints/{id}', 'delete'], ['/v1/webhooks/endpoints/{id}/roll-secret', 'post'],
      ['/v1/webhooks/endpoints/{id}/deliveries', 'get'], ['/v1/webhooks/deliveries/{id}/redeliver', 'post'],
      ['/v1/events', 'get'], ['/v1/events/{id}', 'get'],
    ] as const) {
      expect(paths[path]?.[method], `${method} ${path}`).toBeDefined();
      expect(paths[path][method].security).toEqual([{ bearer: [] }, { session: [] }]);
    }
    for (const name of ['WebhookEndpoint', 'CreateWebhookEndpointRequest', 'DeletedWebhookEndpoint', 'WebhookDelivery', 'WebhookEndpointList', 'WebhookDeliveryList', 'Event', 'EventList']) {
      expect(components.schemas[name], name).toBeDefined();
    }
    expect(components.schemas.CreateWebhookEndpointRequest.additionalProperties).toBe(false);
  });
});
