import { createRoute, z } from '@hono/zod-openapi';
import { callerOf, platformIdOf } from '../middleware/auth.js';
import { markRefused } from '../middleware/relay-refusals.js';
import { access, createRouter, errors, IdempotencyHeader, jsonBody, jsonResponse } from '../openapi.js';
import {
  FacilitatorRequest, PaymentRequiredSchema, RequirementsRequest, RequirementsResponse, SettleResponse, VerifyResponse, X402Receipt, X402TokenParams,
} from '../../modules/x402/schemas.js';

/** The facilitator endpoints' headers: the Idempotency-Key, and the end client a platform's paywall serves. */
const FacilitatorHeaders = IdempotencyHeader.extend({
  'trisettle-client-address': z.string().max(64).optional().openapi({
    description: 'The IP address of the end client your paywall is serving (the SDK paywall sends it): refused payments count per end client '
      + '(RATE_LIMIT_RELAY_REFUSALS_PER_MINUTE each, 50 times that for the platform), not against your server. Must be an IP address (else 422).',
  }),
});

const base64Json = (what: string) => ({ schema: { type: 'string' as const }, description: `Base64 of the JSON ${what} (x402 v2)` });

const pay = createRoute({
  method: 'get', path: '/x402/{token}', tags: ['x402'],
  summary: 'Pay a checkout session with x402 v2 (public; the session\'s x402_url)',
  description: 'Without PAYMENT-SIGNATURE: 402 with PAYMENT-REQUIRED (and the same JSON body), one `exact` accepts entry for the order. '
    + 'With it: the TransferWithAuthorization is verified, relayed as payOrderWithTransfer and waited for until mined: 200 with PAYMENT-RESPONSE '
    + 'and the receipt, or 402 whose `error` is the x402 reason (docs/x402.md). A session that cannot be paid is never a 402: 404 unknown, '
    + '409 order_not_payable (paid), 410 session_expired (expired or cancelled).',
  ...access.public(),
  request: { params: X402TokenParams, headers: z.object({ 'payment-signature': z.string().max(16_384).optional().openapi({ description: 'Base64 JSON x402 v2 PaymentPayload' }) }) },
  responses: {
    200: { ...jsonResponse(X402Receipt, 'Paid: the relayer\'s transaction is mined; the order confirms at depth'), headers: { 'PAYMENT-RESPONSE': base64Json('SettleResponse') } },
    402: { ...jsonResponse(PaymentRequiredSchema, 'Payment required (or the presented payment was refused: `error`)'), headers: { 'PAYMENT-REQUIRED': base64Json('PaymentRequired') } },
    ...errors(404, 409, 410, 429, 503),
  },
});
const requirements = createRoute({
  method: 'post', path: '/v1/x402/requirements', tags: ['x402'], summary: 'Create an order for an x402-paid resource and its PaymentRequired',
  description: 'A checkout session and its order (same split, signature and payer lock as POST /v1/checkout/sessions), answered with the x402 v2 '
    + 'PaymentRequired a resource server sends in its 402. Snake_case request; the PaymentRequired is x402\'s camelCase.',
  ...access.secret(), request: { headers: IdempotencyHeader, body: jsonBody(RequirementsRequest) },
  responses: { 201: jsonResponse(RequirementsResponse, 'The session, its order and the PaymentRequired'), ...errors(400, 401, 403, 404, 409, 413, 422, 429, 503) },
});
const verify = createRoute({
  method: 'post', path: '/v1/x402/verify', tags: ['x402'], summary: 'Verify an x402 payment for one of your sessions (facilitator verify; nothing is sent)',
  description: 'The x402 facilitator shape (camelCase, docs/decisions.md). The session is paymentRequirements.extra.trisettle_session; another '
    + 'platform\'s is 404. A refused payment is 200 with isValid false and the x402 invalidReason.',
  ...access.secret(), request: { headers: FacilitatorHeaders, body: jsonBody(FacilitatorRequest) },
  responses: { 200: jsonResponse(VerifyResponse, 'The verdict'), ...errors(400, 401, 403, 404, 413, 422, 429, 503) },
});
const settle = createRoute({
  method: 'post', path: '/v1/x402/settle', tags: ['x402'], summary: 'Settle an x402 payment for one of your sessions (facilitator settle)',
  description: 'Verifies, relays payOrderWithTransfer with the relayer (gasless budgets and caps) and waits until mined (X402_SETTLE_WAIT_MS; '
    + 'past it errorReason settlement_pending with the transaction). The same authorization again is never sent twice: it is answered from '
    + 'its payment, and only the first answer that reports it paid is success true; any later one (a replay, re-cased or not) is success false, '
    + 'errorReason invalid_exact_evm_nonce_already_used, with the transaction. Repeat a lost answer with the same Idempotency-Key.',
  ...access.secret(), request: { headers: FacilitatorHeaders, body: jsonBody(FacilitatorRequest) },
  responses: { 200: jsonResponse(SettleResponse, 'The outcome and the order\'s receipt'), ...errors(400, 401, 403, 404, 413, 422, 429, 503) },
});

export const x402Routes = createRouter()
  .openapi(pay, async (c) => {
    const a = await c.get('services').x402.pay(c.req.valid('param').token, c.req.header('payment-signature'));
    return c.json(a.body as never, a.status, a.headers) as never;
  })
  .openapi(requirements, async (c) => c.json(await c.get('services').x402.requirements(callerOf(c.get('principal')), c.req.valid('json')), 201))
  .openapi(verify, async (c) => {
    const x402 = c.get('services').x402;
    const answer = await x402.verify(platformIdOf(c.get('principal')), c.req.valid('json'));
    if (x402.countsAsRefusal(answer)) markRefused(c);
    return c.json(answer, 200);
  })
  .openapi(settle, async (c) => {
    const x402 = c.get('services').x402;
    const answer = await x402.settle(platformIdOf(c.get('principal')), c.req.valid('json'));
    if (x402.countsAsRefusal(answer)) markRefused(c);
    return c.json(answer, 200);
  });
