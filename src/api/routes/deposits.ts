import { createRoute } from '@hono/zod-openapi';
import { platformIdOf } from '../middleware/auth.js';
import { access, createRouter, errors, IdempotencyHeader, jsonBody, jsonResponse } from '../openapi.js';
import { PublicCheckoutSession, SessionTokenParams } from '../../modules/checkout/schemas.js';
import { DepositAddressRequest } from '../../modules/deposits/schemas.js';
import { OrderIdParams } from '../../modules/relay/schemas.js';
import { Order } from '../../modules/orders/schemas.js';
import { serializeOrder } from '../../modules/orders/serialize.js';

const RULES = 'Idempotent for the same refund address (the same deposit address again); another refund address once one is set: 409 '
  + 'deposit_refund_address_mismatch. Only an open order before its deadline, paid automatically (not capture_method manual, not a subscription charge): '
  + 'else 409 order_not_payable. 409 deposits_unavailable when the chain has no DepositFactory configured. 400 invalid_refund_address for a malformed '
  + 'address, the zero address, the router, the deposit factory, the token or the deposit itself. docs/deposits.md.';

const forOrder = createRoute({
  method: 'post', path: '/v1/orders/{id}/deposit_address', tags: ['Orders'],
  summary: 'Give the order a deposit address: a plain USDC transfer to it pays the order',
  description: RULES,
  ...access.secretOrSession(), request: { headers: IdempotencyHeader, params: OrderIdParams, body: jsonBody(DepositAddressRequest) },
  responses: { 200: jsonResponse(Order, 'The order with deposit_address and refund_address set'), ...errors(400, 401, 403, 404, 409, 413, 422) },
});
const forSession = createRoute({
  method: 'post', path: '/v1/checkout/sessions/{token}/deposit_address', tags: ['Checkout'],
  summary: 'Give the session\'s order a deposit address (public, for the hosted page)',
  description: `The hosted page posts the buyer's refund address; the answer is the public session read with order.deposit_address set. ${RULES}`,
  ...access.public(), request: { params: SessionTokenParams, body: jsonBody(DepositAddressRequest) },
  responses: { 200: jsonResponse(PublicCheckoutSession, 'The session, its order with deposit_address set'), ...errors(400, 401, 404, 409, 413, 422) },
});

export const depositRoutes = createRouter()
  .openapi(forOrder, async (c) => {
    const order = await c.get('services').deposits.create({ orderId: c.req.valid('param').id, platformId: platformIdOf(c.get('principal')) }, c.req.valid('json').refund_address);
    return c.json(serializeOrder(order), 200);
  })
  .openapi(forSession, async (c) => {
    const s = c.get('services');
    const { token } = c.req.valid('param');
    await s.deposits.create({ orderId: await s.checkout.orderIdOfToken(token), platformId: null }, c.req.valid('json').refund_address);
    return c.body(await s.checkout.readPublicJson(token), 200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' }) as never;
  });
