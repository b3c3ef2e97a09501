import { createRoute } from '@hono/zod-openapi';
import { platformIdOf } from '../middleware/auth.js';
import { access, createRouter, errors, IdempotencyHeader, jsonBody, jsonResponse } from '../openapi.js';
import { SessionTokenParams } from '../../modules/checkout/schemas.js';
import { GaslessUsage, OrderIdParams, Relay, RelayRequest } from '../../modules/relay/schemas.js';

const REFUSALS = 'Checked before anything is sent: gasless enabled (403 gasless_disabled), valid_after exactly "0" and valid_before exactly the '
  + 'typed data\'s (422 validation_failed, param names the field), the order at least GASLESS_MIN_AMOUNT (422 gasless_refused), '
  + 'the order unpaid and before its deadline on the chain clock (409 order_not_payable), nonce = hashPayOrder(order) (422 invalid_authorization), '
  + 'the payer lock (422 payer_mismatch), no relay in flight for the order or from the payer (409 relay_in_flight), the payer not banned after a '
  + 'relay it made fail (422 gasless_refused, message says until when), the platform\'s daily cap (429 gasless_cap_reached), the relayer\'s daily '
  + 'budget (503 gasless_unavailable, Retry-After), then a simulation of payOrderWithAuthorization from the relayer under RELAYER_GAS_LIMIT '
  + '(422 gas_limit_exceeded; 422 invalid_signature, the signature checked against the token\'s EIP-712 domain, EOA or ERC-1271; 422 '
  + 'simulation_failed, naming the revert). A refusal sends nothing. Refusals (4xx) count in a per-address bucket '
  + '(RATE_LIMIT_RELAY_REFUSALS_PER_MINUTE): past it, 429 rate_limited before anything is read.';

const relaySession = createRoute({
  method: 'post', path: '/v1/checkout/sessions/{token}/relay', tags: ['Checkout'],
  summary: 'Relay a signed ReceiveWithAuthorization for the session\'s order (public, gasless checkout)',
  description: `The hosted page posts the buyer's signature of \`gasless.typed_data\` (from the session read). ${REFUSALS}`,
  ...access.public(), request: { params: SessionTokenParams, body: jsonBody(RelayRequest) },
  responses: { 202: jsonResponse(Relay, 'Accepted: the relayer sends payOrderWithAuthorization'), ...errors(400, 401, 403, 404, 409, 413, 422, 429, 503) },
});
const relayOrder = createRoute({
  method: 'post', path: '/v1/orders/{id}/relay', tags: ['Orders'],
  summary: 'Relay a signed ReceiveWithAuthorization for a direct order (platform backend)',
  description: `Same body and checks as the public session relay. ${REFUSALS}`,
  ...access.secretOrSession(), request: { headers: IdempotencyHeader, params: OrderIdParams, body: jsonBody(RelayRequest) },
  responses: { 202: jsonResponse(Relay, 'Accepted: the relayer sends payOrderWithAuthorization'), ...errors(400, 401, 403, 404, 409, 413, 422, 429, 503) },
});
const latest = createRoute({
  method: 'get', path: '/v1/orders/{id}/relay', tags: ['Orders'], summary: 'The latest gasless relay of an order (404 when it has none)',
  ...access.secretOrSession(), request: { params: OrderIdParams },
  responses: { 200: jsonResponse(Relay, 'The relay: state, transaction, error, gas paid by the relayer'), ...errors(401, 403, 404) },
});
const usage = createRoute({
  method: 'get', path: '/v1/gasless/usage', tags: ['Orders'], summary: 'Gasless relays accepted and relayer gas spent, per day (last 30 days)',
  ...access.secretOrSession(),
  responses: { 200: jsonResponse(GaslessUsage, 'Usage'), ...errors(401, 403) },
});

export const relayRoutes = createRouter()
  .openapi(relaySession, async (c) => {
    const s = c.get('services');
    const orderId = await s.checkout.orderIdOfToken(c.req.valid('param').token);
    return c.json(await s.relay.submit({ orderId, platformId: null, via: 'checkout' }, c.req.valid('json')), 202);
  })
  .openapi(relayOrder, async (c) => {
    const platformId = platformIdOf(c.get('principal'));
    return c.json(await c.get('services').relay.submit({ orderId: c.req.valid('param').id, platformId, via: 'api' }, c.req.valid('json')), 202);
  })
  .openapi(latest, async (c) => c.json(await c.get('services').relay.latestForOrder(platformIdOf(c.get('principal')), c.req.valid('param').id), 200))
  .openapi(usage, async (c) => c.json(await c.get('services').relay.usage(platformIdOf(c.get('principal'))), 200));
