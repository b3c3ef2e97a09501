/**
 * A stand-in for the Trisettle API as the SDK's x402 paywall sees it (the SDK's own fetch option), recording every
 * call with its Idempotency-Key and Trisettle-Client-Address; a buyer paying with the stock client; a Hono app.
 */
import { Hono } from 'hono';
import { getAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { wrapFetchWithPaymentFromConfig } from '@x402/fetch';
import { ExactEvmScheme } from '@x402/evm';
import { Trisettle } from '@trisettle/sdk';
import type { X402PaymentPayload, X402PaymentRequired } from '@trisettle/sdk/x402';
import { x402Paywall as honoPaywall, type X402Env } from '@trisettle/sdk/x402/hono';

export const USDC_BASE_SEPOLIA = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
export const ROUTER = '0x5FbDB2315678afecb367f032d93F642f64180aa3';

type Call = { path: string; body: Record<string, unknown>; idempotencyKey: string | null; clientAddress: string | null };
type SettleAnswer = { status: number; body: unknown };

/**
 * A stand-in for the API: requirements in base units (6 decimals); settle answers what the test says, behind the
 * service's Idempotency-Key rules (same key: the stored answer with Idempotent-Replayed; still running: 409).
 */
export function fakeService(secretKey = 'sk_live_test', o: { maxRetries?: number; overlap?: boolean } = {}) {
  const calls: Call[] = [];
  let seq = 0;
  let settle: SettleAnswer = { status: 200, body: null };
  let loseNextAnswer = false;
  const stored = new Map<string, { status: number; text: string } | 'running'>();
  // A settle in progress finishes only once another request for the same key has been told 409 (deterministic overlap).
  let overlapSeen: () => void = () => {};
  const overlap = new Promise<void>((r) => { overlapSeen = r; });
  const requirements = (body: Record<string, unknown>) => {
    const n = ++seq;
    const [whole, frac = ''] = String(body.amount).split('.');
    const amount = (BigInt(whole!) * 1_000_000n + BigInt(frac.padEnd(6, '0'))).toString();
    const pr: X402PaymentRequired = {
      x402Version: 2,
      resource: { url: String(body.resource), description: String(body.description ?? ''), mimeType: 'application/json' },
      accepts: [{ scheme: 'exact', network: 'eip155:84532', amount, asset: USDC_BASE_SEPOLIA, payTo: ROUTER, maxTimeoutSeconds: 300, extra: { name: 'USDC', version: '2', trisettle_session: `cs_${n}` } }],
    };
    return Response.json({ session_id: `cs_${n}`, order_id: `ord_${n}`, x402_url: `http://svc/x402/cs_live_${n}`, payment_required: pr }, { status: 201 });
  };
  const settleOnce = async (key: string, body: Record<string, unknown>) => {
    const prior = stored.get(key);
    if (prior === 'running') overlapSeen();
    if (prior === 'running') return Response.json({ error: { code: 'idempotency_key_in_use', type: 'invalid_request_error', message: 'running' } }, { status: 409 });
    if (prior) return new Response(prior.text, { status: prior.status, headers: { 'content-type': 'application/json', 'Idempotent-Replayed': 'true' } });
    stored.set(key, 'running');
    if (o.overlap) await overlap;
    const answer = typeof settle.body === 'function' ? (settle.body as (b: unknown) => unknown)(body) : settle.body;
    const text = JSON.stringify(answer);
    if (settle.status < 500) stored.set(key, { status: settle.status, text }); else stored.delete(key);
    return new Response(text, { status: settle.status, headers: { 'content-type': 'application/json' } });
  };
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input));
    const body = JSON.parse(String(init?.body ?? '{}')) as Record<string, unknown>;
    const h = new Headers(init?.headers);
    calls.push({ path: url.pathname, body, idempotencyKey: h.get('idempotency-key'), clientAddress: h.get('trisettle-client-address') });
    if (url.pathname === '/v1/x402/requirements') return requirements(body);
    if (url.pathname === '/v1/x402/settle') {
      const res = await settleOnce(new Headers(init?.headers).get('idempotency-key') ?? String(Math.random()), body);
      if (loseNextAnswer) {
        loseNextAnswer = false;
        throw new TypeError('fetch failed (socket hang up)');
      }
      return res;
    }
    return Response.json({ error: { code: 'not_found', type: 'invalid_request_error', message: 'no' } }, { status: 404 });
  }) as typeof globalThis.fetch;
  const client = new Trisettle({ secretKey, baseUrl: 'http://svc', fetch, maxRetries: o.maxRetries ?? 0, retryDelayMs: 1 });
  return {
    client, calls,
    count: (path: string) => calls.filter((c) => c.path === path).length,
    answerSettle(a: SettleAnswer) { settle = a; },
    /** The next settle runs on the service, and its answer is lost on the way back. */
    loseNextAnswer() { loseNextAnswer = true; },
  };
}

export const confirmedSettle = (body: { paymentPayload: X402PaymentPayload }) => ({
  success: true, payer: getAddress((body.paymentPayload.payload as { authorization: { from: string } }).authorization.from),
  transaction: `0x${'ab'.repeat(32)}`, network: 'eip155:84532',
  order: { object: 'x402_receipt', order_id: 'ord_1', state: 'pending_payment', amount: '0.05', token_address: USDC_BASE_SEPOLIA, computed_split: { service_fee: '500', platform_fee: '2500', merchant_gross: '47000', reserve_hold: '4700', merchant_available: '42300' }, tx_hash: null, confirmations_required: 1 },
});

export const buyer = privateKeyToAccount(generatePrivateKey());
export const stockFetch = (fetchImpl: typeof globalThis.fetch) =>
  wrapFetchWithPaymentFromConfig(fetchImpl, { schemes: [{ network: 'eip155:*', client: new ExactEvmScheme(buyer) }] });

export function honoApp(svc: ReturnType<typeof fakeService>, extra: Partial<Parameters<typeof honoPaywall>[0]> = {}) {
  const app = new Hono<X402Env>();
  let handled = 0;
  app.get('/report', honoPaywall({ client: svc.client, merchantId: 'acme', price: '0.05', description: 'A report', metadata: { sku: 'r1' }, ...extra }), (c) => {
    handled++;
    return c.json({ report: 'ok', paid_by: c.get('x402').payer, order: c.get('x402').order?.order_id });
  });
  app.get('/premium', honoPaywall({ client: svc.client, merchantId: 'acme', price: '10.00' }), (c) => { handled++; return c.json({ premium: true }); });
  app.onError((err, c) => c.json({ error: err.message }, 500));
  const fetchApp = ((input: RequestInfo | URL, init?: RequestInit) => app.fetch(new Request(input, init))) as typeof globalThis.fetch;
  return { app, fetchApp, handled: () => handled };
}

