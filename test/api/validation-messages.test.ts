/**
 * A request that fails its schema is answered in words a person reads ("amount is required"), never zod's
 * ("Invalid input: expected string, received undefined"), with `param` naming the field: missing, wrong-type,
 * too-long, out-of-range and unknown fields on a few routes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { fakeChain, merchant } from '../helpers/factories.js';

let h: Harness;
let key: string;
let shop: string;

beforeAll(async () => {
  h = await createHarness(fakeChain());
  key = (await h.platform()).secretKey;
  shop = (await merchant(h, key)).external_id;
});
afterAll(() => h.close());

const order = (body: Record<string, unknown>) => ({ merchant_id: shop, order_no: `v-${Math.random()}`, chain_id: 84532, token: 'USDC', amount: '1.00', ...body });

async function refusal(method: string, path: string, body?: unknown) {
  const res = await h.request(method, path, { key, body });
  expect(res.status, res.text).toBe(422);
  expect(res.body.error.code).toBe('validation_failed');
  expect(res.body.error.message).not.toMatch(/Invalid input|expected \w+, received|Too (big|small)|Invalid option/);
  return res.body.error as { message: string; param?: string };
}

describe('validation errors in plain words', () => {
  it('a missing field is "is required"', async () => {
    const { amount: _, ...rest } = order({});
    expect(await refusal('POST', '/v1/orders', rest)).toMatchObject({ message: 'amount is required', param: 'amount' });
    expect(await refusal('POST', '/v1/webhooks/endpoints', { subscribed_events: ['*'] })).toMatchObject({ message: 'url is required', param: 'url' });
  });

  it('a wrong type names the type expected', async () => {
    expect(await refusal('POST', '/v1/orders', order({ amount: 5 }))).toMatchObject({ message: 'amount must be a string', param: 'amount' });
    expect(await refusal('POST', '/v1/orders', order({ chain_id: '84532' }))).toMatchObject({ param: 'chain_id', message: expect.stringMatching(/^chain_id must be (a number|an integer|one of .+)$/) });
    expect(await refusal('POST', '/v1/webhooks/endpoints', { url: 'http://127.0.0.1:9/x', subscribed_events: 'order.confirmed' }))
      .toMatchObject({ message: 'subscribed_events must be a list', param: 'subscribed_events' });
  });

  it('a too-long or out-of-range value says the bound', async () => {
    expect(await refusal('POST', '/v1/orders', order({ order_no: 'x'.repeat(5000) }))).toMatchObject({ param: 'order_no', message: expect.stringMatching(/^order_no must be at most \d+ characters long$/) });
    expect(await refusal('GET', '/v1/orders?limit=0')).toMatchObject({ message: 'limit must be at least 1', param: 'limit' });
    expect(await refusal('GET', '/v1/orders?limit=1000')).toMatchObject({ param: 'limit', message: expect.stringMatching(/^limit must be at most \d+$/) });
  });

  it('an unknown field is named, and a schema\'s own message is kept after the field', async () => {
    expect(await refusal('POST', '/v1/orders', order({ colour: 'red' }))).toMatchObject({ message: 'Unknown field: colour', param: 'colour' });
    expect(await refusal('GET', '/v1/events?after=not-an-id')).toMatchObject({ message: 'after must be an event id (evt_…)', param: 'after' });
  });
});
