/**
 * GET /openapi.json is the contract the SDK is generated from, so it must be valid OpenAPI 3.1, list
 * exactly the routes the server serves (with their methods), and describe what they really answer.
 *
 * Route coverage compares the document with Hono's own route table (`app.routes`). Not part of the
 * API document, and so excluded from the comparison:
 *   - method ALL entries: middleware mounted with app.use() (request id, auth, body limit…), not routes;
 *   - /api/auth/*: better-auth's handler (sign-up, sign-in, sign-out, get-session), documented by SPEC §4
 *     and docs/integration.md, not by our zod schemas;
 *   - the hosted pages and their static files (/, /onboard/*, /checkout/*, /subscribe/*, /dashboard/*, /assets/*,
 *     /favicon.svg), present when web/dist is built;
 *   - the documentation itself: /openapi.json, /docs and /docs/assets/:file.
 * Everything else, /metrics and the admin /_/* routes included, must be in the document, and nothing
 * may be documented that is not served.
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/modules/events/types.js';
import { authorize, endAuthorization } from '../helpers/authorizations.js';
import { fakeChain, WALLETS } from '../helpers/factories.js';
import { ADMIN_TOKEN, createHarness, type Harness, type ReqOpts, type Res } from '../helpers/harness.js';

type Operation = {
  summary?: string; tags?: string[]; security?: Record<string, string[]>[];
  parameters?: { in: string; name: string; required?: boolean }[];
  requestBody?: { required?: boolean; content: Record<string, { schema: unknown }> };
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
};
type Doc = {
  openapi: string; paths: Record<string, Record<string, Operation>>; webhooks: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
};

const NOT_IN_DOCUMENT: { why: string; test: (method: string, path: string) => boolean }[] = [
  { why: 'middleware (app.use)', test: (m) => m === 'ALL' },
  { why: "better-auth's handler", test: (_m, p) => p.startsWith('/api/auth/') },
  { why: 'hosted pages', test: (_m, p) => ['/', '/favicon.svg'].includes(p) || /^\/(onboard|checkout|subscribe|dashboard|assets)\/\*$/.test(p) },
  { why: 'the documentation itself', test: (_m, p) => p === '/openapi.json' || p === '/docs' || p.startsWith('/docs/') },
];
const OPERATION_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

let h: Harness;
let doc: Doc;
beforeAll(async () => {
  h = await createHarness(fakeChain());
  const res = await h.request('GET', '/openapi.json');
  expect(res.status).toBe(200);
  doc = res.body;
});
afterAll(() => h.close());

const operations = () => Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries(item).filter(([m]) => OPERATION_METHODS.includes(m)).map(([m, op]) => ({ method: m.toUpperCase(), path, op })));

describe('the OpenAPI document', () => {
  it('is valid OpenAPI 3.1 and every $ref resolves', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc) as never);
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 2)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    const refs = JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? [];
    for (const ref of new Set(refs)) {
      const name = /#\/components\/schemas\/([^"]+)"/.exec(ref)?.[1];
      expect(name && doc.components.schemas[name], ref).toBeTruthy();
    }
  });

  it('documents exactly the routes the server serves, with their methods', () => {
    const served = new Set<string>();
    for (const r of h.app.routes) {
      if (NOT_IN_DOCUMENT.some((x) => x.test(r.method, r.path))) continue;
      served.add(`${r.method} ${r.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`);
    }
    const documented = new Set(operations().map((o) => `${o.method} ${o.path}`));
    expect([...served].filter((r) => !documented.has(r)), 'served but not documented').toEqual([]);
    expect([...documented].filter((r) => !served.has(r)), 'documented but not served').toEqual([]);
    expect(documented.size).toBeGreaterThanOrEqual(38);
  });

  it('gives every operation a summary, a tag, a JSON success schema and the error schema', () => {
    for (const { method, path, op } of operations()) {
      const where = `${method} ${path}`;
      expect(op.summary, where).toBeTruthy();
      expect(op.tags?.length, where).toBeGreaterThan(0);
      const ok = Object.entries(op.responses).filter(([s]) => s.startsWith('2'));
      expect(ok.length, where).toBeGreaterThan(0);
      const type = path === '/metrics' ? 'text/plain' : path.startsWith('/v1/exports/') ? 'text/csv' : path === '/v1/events/stream' ? 'text/event-stream' : 'application/json';
      for (const [, r] of ok) expect(r.content?.[type]?.schema, where).toBeDefined();
      for (const [status, r] of Object.entries(op.responses).filter(([s]) => /^[45]/.test(s))) {
        if (path === '/health' && status === '503') continue; // health reports itself, unhealthy included
        if (path === '/x402/{token}' && status === '402') continue; // x402's PaymentRequired: the protocol's 402, not an API error
        expect(r.content?.['application/json']?.schema, `${where} ${status}`).toEqual({ $ref: '#/components/schemas/Error' });
      }
      for (const name of path.match(/\{(\w+)\}/g) ?? []) {
        expect(op.parameters?.some((p) => p.in === 'path' && `{${p.name}}` === name && p.required), `${where} ${name}`).toBe(true);
      }
      if (op.requestBody) {
        // The endpoint test's body is optional: no body sends test.ping (the dashboard's button).
        expect(op.requestBody.required, where).toBe(path !== '/v1/webhooks/endpoints/{id}/test');
        expect(op.requestBody.content['application/json']?.schema, where).toBeDefined();
        // /v1 bodies pass the body limit and the JSON-only check (the admin routes have no JSON-only check).
        if (path.startsWith('/v1/')) expect(Object.keys(op.responses), `${where}: a body route answers 413 and 415`).toEqual(expect.arrayContaining(['413', '415']));
      }
    }
  });

  it('states the auth of every route: bearer (sk_live_) or session on /v1 (session only for onboarding and key creation), admin on /_/* and /metrics, nothing on public ones', () => {
    expect(doc.components.securitySchemes).toMatchObject({
      bearer: { type: 'http', scheme: 'bearer' }, session: { type: 'apiKey', in: 'cookie' }, admin: { type: 'http', scheme: 'bearer' },
    });
    const PUBLIC = ['GET /health', 'GET /v1/merchants/invitations/{token}', 'POST /v1/merchants/invitations/{token}/complete', 'GET /v1/checkout/sessions/{token}', 'POST /v1/checkout/sessions/{token}/relay', 'POST /v1/checkout/sessions/{token}/deposit_address', 'GET /x402/{token}', 'GET /v1/subscriptions/authorize/{token}', 'POST /v1/subscriptions/authorize/{token}'];
    // The x402 facilitator endpoints are for a platform's server (the SDK middleware): secret key only.
    const SECRET_ONLY = ['POST /v1/x402/requirements', 'POST /v1/x402/verify', 'POST /v1/x402/settle'];
    for (const { method, path, op } of operations()) {
      const where = `${method} ${path}`;
      const schemes = (op.security ?? []).flatMap((s) => Object.keys(s)).sort();
      if (PUBLIC.includes(where)) {
        expect(schemes, where).toEqual([]);
        if (path.startsWith('/v1/')) expect(op.responses['401'], `${where}: an invalid credential, if sent, is refused`).toBeDefined();
      }
      else if (path.startsWith('/_/') || path === '/metrics') expect(schemes, where).toEqual(['admin']);
      else if (['POST /v1/onboarding/self', 'POST /v1/developers/keys'].includes(where)) expect(schemes, where).toEqual(['session']);
      else if (SECRET_ONLY.includes(where)) expect(schemes, where).toEqual(['bearer']);
      else expect(schemes, where).toEqual(['bearer', 'session']);
      if (schemes.length) expect(op.responses['401'], `${where} documents 401`).toBeDefined();
      if (path.startsWith('/v1/') && schemes.includes('bearer') && ['POST', 'DELETE'].includes(method)) {
        expect(op.parameters?.some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key'), `${where} Idempotency-Key`).toBe(true);
      }
    }
  });

  it('lists the error codes and the webhooks, one per event type, with their signed headers', () => {
    const error = doc.components.schemas.Error as { properties: { error: { properties: { code: { enum: string[] } } } } };
    expect(error.properties.error.properties.code.enum).toEqual(expect.arrayContaining([
      'validation_failed', 'duplicate_idempotency_key', 'idempotency_key_in_use', 'conflict', 'not_found', 'unauthenticated', 'invitation_expired',
    ]));
    expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENT_TYPES].sort());
    for (const [type, item] of Object.entries(doc.webhooks)) {
      const names = (item.post!.parameters ?? []).map((p) => p.name);
      expect(names, type).toEqual(['x-webhook-id', 'x-webhook-timestamp', 'x-webhook-signature']);
    }
    expect((doc.components.schemas.WebhookEvent as { oneOf: unknown[] }).oneOf).toHaveLength(EVENT_TYPES.length);
  });
});

describe('/docs', () => {
  it('renders the reference from /openapi.json with assets served by this server only (works offline)', async () => {
    const page = await h.request('GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const srcs = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(srcs.filter((s) => /^(https?:)?\/\//.test(s))).toEqual([]);
    for (const asset of srcs.filter((s) => s.startsWith('/docs/assets/'))) {
      const res = await h.request('GET', asset);
      expect(res.status, asset).toBe(200);
      expect(res.headers.get('content-type'), asset).toMatch(/^text\/(css|javascript)/);
      expect(res.text.length, asset).toBeGreaterThan(100);
    }
    const init = await h.request('GET', '/docs/assets/init.js');
    expect(init.text).toContain("url: '/openapi.json'");
    expect(init.text).toContain('validatorUrl: null'); // Swagger UI would otherwise call an outside validator
    expect((await h.request('GET', '/docs/assets/nope.js')).status).toBe(404);
  });
});

/**
 * Real responses checked against the document: a walk through the API in process, each answer
 * validated against the schema the document gives for its path, method and status.
 */
describe('responses match the document', () => {
  const validators = new Map<string, ValidateFunction>();
  const checked = new Set<string>();
  let ajv: Ajv2020;

  /**
   * The document's schemas made strict for checking: an object may carry only the properties it
   * documents (unevaluatedProperties: false), so a field the server sends but the document (and so the
   * SDK's types) lacks fails. Members of an allOf are checked loose and the allOf as a whole strict.
   */
  const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
  function prepare(node: unknown, loose = false): unknown {
    if (Array.isArray(node)) return node.map((n) => prepare(n));
    if (!isObj(node)) return node;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out[k] = v.replace('#/components/schemas/', loose ? 'urn:loose:' : 'urn:schema:');
      else if (k === 'allOf' && Array.isArray(v)) out[k] = v.map((n) => prepare(n, true));
      else if (k === 'properties' && isObj(v)) out[k] = Object.fromEntries(Object.entries(v).map(([name, sub]) => [name, prepare(sub)]));
      else out[k] = prepare(v);
    }
    if (!loose && ('properties' in node || 'allOf' in node) && !('additionalProperties' in node)) out.unevaluatedProperties = false;
    return out;
  }
  const templateOf = (path: string) => {
    const pathname = path.split('?')[0]!;
    const match = Object.keys(doc.paths)
      .filter((t) => new RegExp(`^${t.replace(/\{\w+\}/g, '[^/]+')}$`).test(pathname))
      .sort((a, b) => (a.match(/\{/g)?.length ?? 0) - (b.match(/\{/g)?.length ?? 0)); // literal segments win, as in the router
    return match[0];
  };

  function validate(method: string, path: string, res: Res) {
    const template = templateOf(path);
    expect(template, `${method} ${path} is documented`).toBeDefined();
    const op = doc.paths[template!]![method.toLowerCase()];
    expect(op, `${method} ${template}`).toBeDefined();
    const response = op!.responses[String(res.status)];
    expect(response, `${method} ${template} documents status ${res.status}: ${res.text.slice(0, 200)}`).toBeDefined();
    checked.add(`${method} ${template}`);
    const schema = response!.content?.['application/json']?.schema;
    if (!schema) return;
    const key = `${method} ${template} ${res.status}`;
    const v = validators.get(key) ?? ajv.compile(prepare(schema) as object);
    validators.set(key, v);
    expect(v(res.body), `${key}: ${ajv.errorsText(v.errors)}\n${res.text.slice(0, 500)}`).toBe(true);
  }

  async function call(method: string, path: string, opts: ReqOpts = {}, expected?: number): Promise<Res> {
    const res = await h.request(method, path, opts);
    if (expected !== undefined) expect(res.status, `${method} ${path}: ${res.text.slice(0, 300)}`).toBe(expected);
    validate(method, path, res);
    return res;
  }

  beforeAll(() => {
    ajv = new Ajv2020({ strict: false, allErrors: true });
    for (const [name, schema] of Object.entries(doc.components.schemas)) {
      ajv.addSchema({ ...(prepare(schema) as object), $id: `urn:schema:${name}` });
      ajv.addSchema({ ...(prepare(schema, true) as object), $id: `urn:loose:${name}` });
    }
    // The checker itself: a missing field and an undocumented one both fail.
    const merchant = { id: 'mch_1', object: 'merchant', external_id: 'x', name: 'n', merchant_wallet: '0x', chain_id: 1, reserve_bps: 0, state: 'active', created_at: 't' };
    const check = ajv.getSchema('urn:schema:Merchant')!;
    expect([check(merchant), check({ ...merchant, extra: 1 }), check({ ...merchant, id: undefined })]).toEqual([true, false, false]);
  });

  it('for every documented operation, success and error answers alike', async () => {
    await call('GET', '/health', {}, 200);
    const user = await h.signUp();
    const onboarded = await call('POST', '/v1/onboarding/self', {
      cookie: user.cookie, body: { name: 'Doc Market', platform_wallet: WALLETS.platform, chain_id: 84532, platform_fee_bps: 300, default_reserve_bps: 500 },
    }, 201);
    const key = onboarded.body.secret_key as string;
    await call('GET', '/v1/me', { key }, 200);
    await call('GET', '/v1/me', { key: onboarded.body.publishable_key }, 200);
    await call('GET', '/v1/me', { cookie: user.cookie }, 200);
    await call('GET', '/v1/me', {}, 401);

    // Webhook endpoint first, so later events create deliveries.
    const ep = await call('POST', '/v1/webhooks/endpoints', { key, body: { url: 'http://127.0.0.1:9/hook', subscribed_events: ['*'] } }, 201);
    await call('GET', '/v1/webhooks/endpoints', { key }, 200);
    await call('GET', `/v1/webhooks/endpoints/${ep.body.id}`, { key }, 200);
    await call('POST', `/v1/webhooks/endpoints/${ep.body.id}/roll-secret`, { key }, 200);
    await call('POST', '/v1/webhooks/endpoints', { key, body: { url: 'http://127.0.0.1:9/x', subscribed_events: ['nope'] } }, 422);

    const m = await call('POST', '/v1/onboarding/merchants', {
      key, body: { external_id: 'doc-shop', name: 'Doc Shop', merchant_wallet: WALLETS.merchant, chain_id: 84532, reserve_bps: 1000 },
    }, 201);
    await call('POST', '/v1/onboarding/merchants', {
      key, body: { external_id: 'doc-shop', name: 'Again', merchant_wallet: WALLETS.merchant, chain_id: 84532 },
    }, 409);
    await call('GET', '/v1/merchants?limit=1', { key }, 200);
    await call('GET', `/v1/merchants/${m.body.id}`, { key }, 200);
    await call('GET', '/v1/merchants/unknown', { key }, 404);

    const inv = await call('POST', '/v1/merchants/invitations', { key, body: { external_id: 'doc-invited', suggested_name: 'Invited', chain_id: 84532 } }, 201);
    await call('GET', '/v1/merchants/invitations', { key }, 200);
    const wallet = privateKeyToAccount(generatePrivateKey());
    const read = await call('GET', `/v1/merchants/invitations/${inv.body.token}?wallet=${wallet.address}`, {}, 200);
    const signature = await wallet.signMessage({ message: read.body.message });
    await call('POST', `/v1/merchants/invitations/${inv.body.token}/complete`, { body: { wallet: wallet.address, name: 'Invited Shop', signature: '0x123' } }, 422);
    // this harness's chain is unreachable: a signature that needs it (a contract wallet's, or garbage) is 503
    await call('POST', `/v1/merchants/invitations/${inv.body.token}/complete`, { body: { wallet: wallet.address, name: 'Invited Shop', signature: `0x${'1'.repeat(130)}` } }, 503);
    await call('POST', `/v1/merchants/invitations/${inv.body.token}/complete`, { body: { wallet: wallet.address, name: 'Invited Shop', signature } }, 201);
    await call('GET', `/v1/merchants/invitations/${inv.body.token}`, {});
    await call('GET', '/v1/merchants/invitations/moi_live_unknown', {}, 404);
    await call('POST', `/v1/merchants/invitations/${inv.body.id}/revoke`, { key }, 409);
    const spare = await call('POST', '/v1/merchants/invitations', { key, body: { external_id: 'doc-revoked', suggested_name: 'Revoked', chain_id: 84532 } }, 201);
    await call('POST', `/v1/merchants/invitations/${spare.body.id}/revoke`, { key }, 200);
    await call('POST', '/v1/merchants/invitations/inv_unknown/revoke', { key }, 404);

    const order = await call('POST', '/v1/orders', {
      key, body: { merchant_id: 'doc-shop', order_no: 'doc-1', chain_id: 84532, token: 'USDC', amount: '19.99', metadata: { sku: 'X' } },
    }, 201);
    await call('POST', '/v1/orders', { key, body: { merchant_id: 'doc-shop', order_no: 'doc-1', chain_id: 84532, token: 'USDC', amount: '19.99' } }, 409);
    await call('POST', '/v1/orders', { key, body: { merchant_id: 'doc-shop', order_no: 'doc-2', chain_id: 84532, token: 'USDC', amount: '0.0000001' } }, 422);
    await call('POST', '/v1/orders', { key, raw: '{"merchant_id":', headers: {} }, 400);
    await call('POST', '/v1/orders', { key, raw: 'a=b', headers: { 'content-type': 'application/x-www-form-urlencoded' } }, 415);
    await call('POST', '/v1/orders', { key: onboarded.body.publishable_key, body: {} }, 403);
    await call('GET', '/v1/orders?state=pending_payment&limit=5', { key }, 200);
    await call('GET', '/v1/orders/summary', { key }, 200);
    await call('GET', `/v1/orders/${order.body.id}`, { key }, 200);
    // Charge later: refusals, then a capture and a void of authorizations applied as the indexer would.
    const manual = (no: string) => call('POST', '/v1/orders', { key, body: { merchant_id: 'doc-shop', order_no: no, chain_id: 84532, token: 'USDC', amount: '8.00', capture_method: 'manual' } }, 201);
    const held = await manual('doc-m-1');
    await call('POST', '/v1/orders', { key, body: { merchant_id: 'doc-shop', order_no: 'doc-m-x', chain_id: 84532, token: 'USDC', amount: '8.00', capture_within_seconds: 3600 } }, 422);
    await call('POST', `/v1/orders/${held.body.id}/capture`, { key, body: {} }, 409);
    await call('POST', '/v1/orders/ord_unknown/capture', { key, body: {} }, 404);
    await call('POST', `/v1/orders/${held.body.id}/void`, { key }, 409);
    await authorize(h, held.body);
    await call('POST', `/v1/orders/${held.body.id}/capture`, { key, body: { amount: '9.00' } }, 422);
    await call('POST', `/v1/orders/${held.body.id}/capture`, { key, body: { amount: '5.00' } }, 202);
    const voided = await manual('doc-m-2');
    await authorize(h, voided.body);
    await call('POST', `/v1/orders/${voided.body.id}/void`, { key }, 202);
    await endAuthorization(h, voided.body, 'void');

    const session = await call('POST', '/v1/checkout/sessions', {
      key, body: { merchant_id: 'doc-shop', order_no: 'doc-s-1', chain_id: 84532, token: 'USDC', amount: '5.00', expires_in_seconds: 600 },
    }, 201);
    await call('GET', `/v1/checkout/sessions/${session.body.session_token}`, {}, 200);
    await call('GET', '/v1/checkout/sessions/cs_live_unknown', {}, 404);
    // Gasless relay: refusals that need no chain (this harness has none), and the usage read.
    const auth = { from: WALLETS.merchant, valid_after: '0', valid_before: '1', nonce: `0x${'00'.repeat(32)}`, signature: `0x${'11'.repeat(65)}` };
    await call('POST', `/v1/checkout/sessions/${session.body.session_token}/relay`, { body: { ...auth, signature: '0x12' } }, 422);
    await call('POST', '/v1/checkout/sessions/cs_live_unknown/relay', { body: auth }, 404);
    await call('POST', `/v1/orders/${order.body.id}/relay`, { key, body: { ...auth, extra: 1 } }, 422);
    await call('POST', '/v1/orders/ord_unknown/relay', { key, body: auth }, 404);
    await call('POST', `/v1/orders/${order.body.id}/relay`, { key, body: auth }, 503); // no relayer key in this harness
    await call('GET', `/v1/orders/${order.body.id}/relay`, { key }, 404);
    // Deposit addresses: refusals (this harness's chain has no DepositFactory: 409 deposits_unavailable).
    await call('POST', `/v1/orders/${order.body.id}/deposit_address`, { key, body: { refund_address: '0xabc' } }, 400);
    await call('POST', '/v1/orders/ord_unknown/deposit_address', { key, body: { refund_address: WALLETS.merchant } }, 404);
    await call('POST', `/v1/orders/${order.body.id}/deposit_address`, { key, body: { refund_address: WALLETS.merchant } }, 409);
    await call('POST', `/v1/checkout/sessions/${session.body.session_token}/deposit_address`, { body: { refund_address: '0xabc' } }, 400);
    await call('POST', '/v1/checkout/sessions/cs_live_unknown/deposit_address', { body: { refund_address: WALLETS.merchant } }, 404);
    await call('POST', `/v1/checkout/sessions/${session.body.session_token}/deposit_address`, { body: { refund_address: WALLETS.merchant } }, 409);
    // x402: the pay URL (unknown token; a real one needs the chain, 503 here), the facilitator endpoints' refusals.
    await call('GET', '/x402/cs_live_unknown', {}, 404);
    await call('GET', `/x402/${session.body.session_token}`, {}, 503);
    await call('POST', '/v1/x402/requirements', { key, body: { merchant_id: 'nobody', amount: '1.00' } }, 404);
    await call('POST', '/v1/x402/requirements', { key, body: { merchant_id: 'nobody', amount: '1.00', surprise: 1 } }, 422);
    const x402Auth = { from: WALLETS.platform, to: WALLETS.platform, value: '1', validAfter: '0', validBefore: '1', nonce: `0x${'1'.repeat(64)}` };
    const x402Req = { scheme: 'exact', network: 'eip155:84532', amount: '1', asset: WALLETS.platform, payTo: WALLETS.platform, maxTimeoutSeconds: 60, extra: { trisettle_session: 'cs_unknown' } };
    const x402Body = { x402Version: 2, paymentPayload: { x402Version: 2, payload: { authorization: x402Auth, signature: `0x${'1'.repeat(130)}` } }, paymentRequirements: x402Req };
    await call('POST', '/v1/x402/verify', { key, body: x402Body }, 404);
    await call('POST', '/v1/x402/settle', { key, body: x402Body }, 404);
    await call('GET', '/v1/gasless/usage', { key }, 200);
    // Public, but a credential that is sent must be valid.
    await call('GET', `/v1/checkout/sessions/${session.body.session_token}`, { key: 'sk_live_revoked' }, 401);

    // Subscriptions: create, read, the public authorization read and a refusal, cancel.
    const sub = await call('POST', '/v1/subscriptions', { key, body: { merchant_id: 'doc-shop', chain_id: 84532, token: 'USDC', amount: '4.00', interval: 'month', max_periods: 12 } }, 201);
    await call('POST', '/v1/subscriptions', { key, body: { merchant_id: 'doc-shop', chain_id: 84532, token: 'USDC', amount: '4.00', interval: 'hour' } }, 422);
    await call('GET', '/v1/subscriptions?state=incomplete&limit=5', { key }, 200);
    await call('GET', `/v1/subscriptions/${sub.body.id}`, { key }, 200);
    await call('GET', '/v1/subscriptions/sub_unknown', { key }, 404);
    const subToken = (sub.body.url as string).split('/subscribe/')[1]!;
    await call('GET', `/v1/subscriptions/authorize/${subToken}`, {}, 200);
    await call('GET', '/v1/subscriptions/authorize/sub_live_unknown', {}, 404);
    await call('POST', `/v1/subscriptions/authorize/${subToken}`, { body: { payer: WALLETS.merchant, start: 0, signature: `0x${'11'.repeat(65)}` } }, 422);
    await call('POST', `/v1/subscriptions/${sub.body.id}/cancel`, { key, body: {} }, 200);
    await call('POST', `/v1/subscriptions/${sub.body.id}/cancel`, { key, body: {} }, 409);

    await call('POST', '/v1/refunds', { key, body: { order_id: order.body.id } }, 409);
    await call('GET', '/v1/refunds', { key }, 200);
    await call('GET', '/v1/refunds/re_unknown', { key }, 404);
    await call('POST', '/v1/refunds/re_unknown/cancel', { key }, 404);
    await call('GET', '/v1/settlements', { key }, 200);
    await call('GET', '/v1/settlements/stl_unknown', { key }, 404);
    await call('GET', '/v1/balance', { key }, 200);
    await call('GET', '/v1/balance?merchant_id=doc-shop', { key }, 200);
    await call('GET', '/v1/balance?merchant_id=nobody', { key }, 404);
    await call('GET', '/v1/balance?nope=1', { key }, 422);
    await call('GET', '/v1/balance_transactions?limit=5', { key }, 200);
    await call('GET', '/v1/balance_transactions?limit=500', { key }, 422);
    await call('GET', '/v1/balance_transactions?merchant_id=nobody', { key }, 404);
    await call('GET', '/v1/balance/net_volume?days=7', { key }, 200);
    await call('GET', '/v1/balance/net_volume?days=8', { key }, 422);
    for (const kind of ['orders', 'refunds', 'balance_transactions', 'settlements']) {
      const csv = await call('GET', `/v1/exports/${kind}.csv`, { key }, 200);
      expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
      await call('GET', `/v1/exports/${kind}.csv?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z`, { key }, 422);
    }

    await call('GET', '/v1/developers/keys', { key }, 200);
    await call('GET', '/v1/developers/keys?cursor=nope', { key }, 422);
    await call('POST', '/v1/developers/keys', { key }, 403);
    const rolled = await call('POST', '/v1/developers/keys', { cookie: user.cookie }, 201);
    await call('POST', `/v1/developers/keys/${rolled.body.id}/revoke`, { key }, 403);
    await call('POST', `/v1/developers/keys/${rolled.body.id}/revoke`, { cookie: user.cookie }, 200);
    await call('POST', '/v1/developers/keys/key_unknown/revoke', { key }, 404);
    await call('GET', '/v1/developers/audit_log', { key }, 200);
    await call('GET', '/v1/developers/audit_log?limit=0', { key }, 422);
    await call('GET', '/v1/developers/audit_log', {}, 401);

    await call('GET', '/_/indexer/status', { key: ADMIN_TOKEN }, 200);
    await call('POST', '/_/indexer/stop', { key: ADMIN_TOKEN }, 200);
    await call('GET', '/_/indexer/status', { key }, 401);
    await call('GET', '/_/unmatched-transfers', { key: ADMIN_TOKEN }, 200);
    await call('GET', '/_/unmatched-transfers', { key }, 401);
    await call('POST', `/_/orders/${order.body.id}/fail`, { key: ADMIN_TOKEN, body: { reason: 'document check' } }, 202);
    // No chain here: the indexer's PayOrderCancelled is applied as the indexer would, then the order is failed.
    await h.db.transaction().execute((tx) => h.services.chainEvents.PayOrderCancelled(tx, { chainId: 84532, orderOnchainId: order.body.eip712.message.orderId, txHash: `0x${'ef'.repeat(32)}`, blockTime: new Date() }));
    await call('POST', `/_/orders/${order.body.id}/fail`, { key: ADMIN_TOKEN, body: { reason: 'again' } }, 409);
    const metrics = await h.request('GET', '/metrics', { key: ADMIN_TOKEN });
    expect(metrics.status).toBe(200);
    validate('GET', '/metrics', metrics);

    // The session's order expires (the sweeper, run with a later clock): order.expired + checkout.session.expired.
    await h.services.orders.expireDue(84532, new Date(Date.now() + 3_600_000));

    const deliveries = await call('GET', `/v1/webhooks/endpoints/${ep.body.id}/deliveries`, { key }, 200);
    expect(deliveries.body.data.length).toBeGreaterThan(0);
    await call('POST', `/v1/webhooks/deliveries/${deliveries.body.data[0].id}/redeliver`, { key }, 200);
    await call('POST', `/v1/webhooks/endpoints/${ep.body.id}/replay`, { key, body: { since: new Date(Date.now() - 3_600_000).toISOString(), until: new Date(Date.now() + 60_000).toISOString() } }, 200);
    const events = await call('GET', '/v1/events?limit=100', { key }, 200);
    await call('GET', `/v1/events/${events.body.data[0].id}`, { key }, 200);
    await call('DELETE', `/v1/webhooks/endpoints/${ep.body.id}`, { key }, 200);
    await call('DELETE', `/v1/webhooks/endpoints/${ep.body.id}`, { key }, 404);

    // Each event, as a webhook body, matches the webhook schema of its type.
    const webhookEvent = ajv.getSchema('urn:schema:WebhookEvent')!;
    const types = new Set<string>();
    for (const e of events.body.data as { id: string; type: string; created_at: string; data: unknown }[]) {
      const body = { id: e.id, type: e.type, created_at: e.created_at, data: e.data };
      expect(webhookEvent(body), `${e.type}: ${ajv.errorsText(webhookEvent.errors)}`).toBe(true);
      types.add(e.type);
    }
    expect([...types].sort()).toEqual(['checkout.session.expired', 'merchant.created', 'order.authorized', 'order.expired', 'order.failed', 'order.voided', 'subscription.canceled', 'subscription.created']);

    // Developer tools: endpoint edit, pause, resume, test event, the delivery inspector, event filters.
    const ep2 = await call('POST', '/v1/webhooks/endpoints', { key, body: { url: 'http://127.0.0.1:9/tools', subscribed_events: ['order.expired'] } }, 201);
    await call('POST', `/v1/webhooks/endpoints/${ep2.body.id}`, { key, body: { description: 'edited', subscribed_events: ['*'] } }, 200);
    await call('POST', `/v1/webhooks/endpoints/${ep2.body.id}`, { key, body: {} }, 422);
    await call('POST', '/v1/webhooks/endpoints/we_unknown', { key, body: { description: 'x' } }, 404);
    await call('POST', `/v1/webhooks/endpoints/${ep2.body.id}/pause`, { key }, 200);
    await call('POST', `/v1/webhooks/endpoints/${ep2.body.id}/resume`, { key }, 200);
    await call('POST', '/v1/webhooks/endpoints/we_unknown/pause', { key }, 404);
    await call('POST', '/v1/webhooks/endpoints/we_unknown/resume', { key }, 404);
    const ping = await call('POST', `/v1/webhooks/endpoints/${ep2.body.id}/test`, { key }, 201);
    await call('POST', '/v1/webhooks/endpoints/we_unknown/test', { key }, 404);
    await call('GET', `/v1/webhooks/deliveries/${ping.body.id}`, { key }, 200);
    await call('GET', '/v1/webhooks/deliveries/dlv_unknown', { key }, 404);
    await call('GET', '/v1/events?type=order.*&delivery_status=pending', { key }, 200);
    await call('GET', '/v1/events?type=ORDER', { key }, 422);
    // The stream itself never ends (test/api/events-stream.test.ts reads it): its refusals here.
    await call('GET', '/v1/events/stream?after=evt_unknown', { key }, 404);
    await call('GET', '/v1/events/stream?from=0', { key }, 422);
    await call('POST', '/v1/events/test', { key, body: { type: 'settlement.completed' } }, 201);
    await call('POST', '/v1/events/test', { key, body: { type: 'nope' } }, 422);
    // Timelines, the order's payment method.
    await call('GET', `/v1/orders/${order.body.id}/timeline`, { key }, 200);
    await call('GET', '/v1/orders/ord_unknown/timeline', { key }, 404);
    await call('GET', '/v1/refunds/re_unknown/timeline', { key }, 404);
    await call('GET', `/v1/merchants/${m.body.id}/timeline`, { key }, 200);
    // Test clocks: this harness's chain does not answer (503); bad input is 422.
    await call('GET', '/v1/test_helpers/clock', { key }, 503);
    await call('POST', '/v1/test_helpers/advance_time', { key, body: { seconds: 0 } }, 422);
    await call('POST', '/v1/test_helpers/advance_time', { key, body: { seconds: 60 } }, 503);
    // Request log: a failure above is found by its request id.
    const failed = await h.request('GET', '/v1/orders/ord_unknown', { key });
    const logs = await call('GET', '/v1/developers/request_logs?status=4xx&limit=5', { key }, 200);
    expect(logs.body.data.length).toBeGreaterThan(0);
    await call('GET', `/v1/developers/request_logs/${failed.body.error.request_id}`, { key }, 200);
    await call('GET', '/v1/developers/request_logs/req_unknown', { key }, 404);
    await call('GET', '/v1/developers/request_logs?status=42', { key }, 422);

    // Every operation was checked against a real answer, except starting the indexer (it would poll a chain).
    const all = operations().map((o) => `${o.method} ${o.path}`);
    expect(all.filter((o) => !checked.has(o))).toEqual(['POST /_/indexer/start']);
  });
});
