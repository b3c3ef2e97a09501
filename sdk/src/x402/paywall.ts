/**
 * The framework-free core of the x402 paywall: given a request (method, URL, headers), decide between a 402
 * (with a fresh Trisettle order to pay) and a settled payment (with its receipt). The Hono and Express adapters
 * only translate requests and responses.
 */
import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import { CORE, Trisettle } from '../client.js';
import type { Core } from '../core.js';
import { TrisettleError } from '../errors.js';
import type { X402SettleResult } from './api.js';
import { bindPaymentRequired, isBound, withoutBinding, type BindingScope } from './binding.js';
import { RequirementsCache } from './cache.js';
import { encodeX402Header, parsePaymentPayload } from './headers.js';
import { screenPayment, type ExactAuthorization } from './screen.js';
import {
  PAYMENT_REQUIRED_HEADER, PAYMENT_RESPONSE_HEADER, PAYMENT_SIGNATURE_HEADER,
  type X402PaymentPayload, type X402PaymentRequired, type X402SettleResponse,
} from './types.js';

/** What the core needs of a request. */
export type X402HttpRequest = {
  method: string;
  /** The full URL the client requested (scheme, host, path, query): it becomes `resource.url`. */
  url: string;
  header(name: string): string | undefined;
  /** The end client's IP address as the framework sees it (Express: req.ip; Hono on Node: the socket's peer). */
  clientAddress?: string | undefined;
};

export type X402PaywallOptions = {
  /** A client with the platform's secret key; or give `apiKey` (and `baseUrl`). */
  client?: Trisettle;
  apiKey?: string;
  baseUrl?: string;
  /** The merchant paid (its id or external_id). */
  merchantId: string;
  /** Human units, a decimal string ("0.05"), or a function of the request. */
  price: string | ((req: X402HttpRequest) => string | Promise<string>);
  description?: string;
  metadata?: Record<string, string> | ((req: X402HttpRequest) => Record<string, string>);
  /**
   * Default 0 (off): every unpaid request creates a fresh order. With N > 0, unpaid requests for the same
   * method, URL, price and `requirementsCacheKey` within N seconds get the same PaymentRequired (one order),
   * until it is paid. At most MAX_CACHE_SECONDS (120): a session's payment window is 600 s.
   */
  requirementsCacheSeconds?: number;
  /** Who shares a cached PaymentRequired (e.g. the caller's address or API key). Default: everyone. */
  requirementsCacheKey?: (req: X402HttpRequest) => string;
  /** Cached PaymentRequired objects kept at most (oldest dropped first). Default 1000. */
  maxCachedRequirements?: number;
  /**
   * The end client's IP address, sent to the service (Trisettle-Client-Address) so refused payments are counted
   * per end client, not against the platform's server. Default: the adapter's (Express `req.ip`, which follows
   * `trust proxy`; Hono on @hono/node-server the socket's peer). Give it behind a proxy the adapter does not know.
   */
  clientAddress?: (req: X402HttpRequest) => string | undefined;
  /**
   * Default false: a 65-byte signature that does not recover to the payer is refused here, without calling the
   * service (junk costs nothing). true: forwarded to the service, for payers whose contract wallet signs with 65
   * bytes (a 1-of-1 Safe). Other lengths (ERC-1271, ERC-6492) always go to the service, which checks them on chain.
   */
  contractWallets?: boolean;
  /** Seconds since the epoch (tests). */
  now?: () => number;
};

/** What a paid request's handler sees (Hono: `c.get('x402')`, Express: `res.locals.x402`). */
export type X402Receipt = {
  payer: string;
  transaction: string;
  network: string;
  session: string;
  order: NonNullable<X402SettleResult['order']> | null;
};

export type X402Decision =
  | { paid: false; status: 402; headers: Record<string, string>; body: unknown }
  | { paid: true; receipt: X402Receipt; headers: Record<string, string> };

function clientOf(o: X402PaywallOptions): Trisettle {
  if (o.client) return o.client;
  if (!o.apiKey) throw new TypeError('x402Paywall: pass client (a Trisettle with a secret key) or apiKey');
  return new Trisettle({ secretKey: o.apiKey, ...(o.baseUrl ? { baseUrl: o.baseUrl } : {}) });
}

const paymentRequiredReply = (pr: X402PaymentRequired): X402Decision => ({
  paid: false, status: 402, body: pr,
  headers: { [PAYMENT_REQUIRED_HEADER]: encodeX402Header(pr), 'Cache-Control': 'no-store', 'Access-Control-Expose-Headers': PAYMENT_REQUIRED_HEADER },
});

function settleFailedReply(payload: X402PaymentPayload, reason: string, payer?: string): X402Decision {
  const response: X402SettleResponse = { success: false, errorReason: reason, transaction: '', network: payload.accepted.network, ...(payer ? { payer } : {}) };
  return {
    paid: false, status: 402, body: { x402Version: 2, error: reason },
    headers: { [PAYMENT_RESPONSE_HEADER]: encodeX402Header(response), 'Cache-Control': 'no-store', 'Access-Control-Expose-Headers': PAYMENT_RESPONSE_HEADER },
  };
}

/**
 * A requirement is offered for a session of 600 s whose authorizations live up to 300 s (maxTimeoutSeconds); reused
 * later than this, an authorization could outlive the order's deadline and be refused.
 */
export const MAX_CACHE_SECONDS = 120;

/** One paywall: its client, binding key and cache. */
class Paywall {
  readonly #client: Trisettle;
  readonly #core: Core;
  readonly #key: Buffer;
  readonly #cache: RequirementsCache;

  constructor(private readonly o: X402PaywallOptions) {
    if (!o?.merchantId) throw new TypeError('x402Paywall: merchantId is required');
    if (o.price === undefined) throw new TypeError('x402Paywall: price is required');
    this.#client = clientOf(o);
    const core = (this.#client as unknown as Record<symbol, Core | undefined>)[CORE];
    if (!core) throw new TypeError('x402Paywall: client is not a Trisettle client');
    this.#core = core;
    this.#key = core.deriveKey('x402-binding-v1');
    const cacheSeconds = Math.min(MAX_CACHE_SECONDS, Math.max(0, o.requirementsCacheSeconds ?? 0));
    this.#cache = new RequirementsCache(cacheSeconds * 1000, o.maxCachedRequirements ?? 1000);
  }

  #scope(req: X402HttpRequest): BindingScope {
    return { merchantId: this.o.merchantId, method: req.method.toUpperCase(), url: req.url };
  }

  async decide(req: X402HttpRequest): Promise<X402Decision> {
    const header = req.header(PAYMENT_SIGNATURE_HEADER);
    if (!header) return this.#offer(req);
    let payload: X402PaymentPayload;
    try {
      payload = parsePaymentPayload(header);
    } catch (err) {
      return this.#offer(req, `invalid_payload: ${(err as Error).message}`);
    }
    if (!isBound(this.#key, payload, this.#scope(req))) return this.#offer(req, 'payment_not_for_this_resource');
    // Everything that can be refused without the chain is refused here: junk never reaches the service.
    const now = this.o.now?.() ?? Math.floor(Date.now() / 1000);
    const screened = screenPayment(payload, now, { contractWallets: this.o.contractWallets === true });
    if (!screened.ok) return settleFailedReply(payload, screened.reason, screened.payer);
    return this.#settle(screened.payload, screened.auth, screened.signature, this.#clientAddress(req));
  }

  /** The end client's address when it is an IP address (anything else is not sent). */
  #clientAddress(req: X402HttpRequest): string | undefined {
    const address = (this.o.clientAddress ? this.o.clientAddress(req) : req.clientAddress)?.trim();
    return address && isIP(address.replace(/^\[|\]$/g, '')) !== 0 ? address.replace(/^\[|\]$/g, '') : undefined;
  }

  /** A 402 naming a fresh order (or the cached one for this route, price and key). */
  async #offer(req: X402HttpRequest, error?: string): Promise<X402Decision> {
    const o = this.o;
    const price = typeof o.price === 'function' ? await o.price(req) : o.price;
    const cacheKey = JSON.stringify([req.method.toUpperCase(), req.url, price, o.requirementsCacheKey?.(req) ?? '']);
    let pr = this.#cache.get(cacheKey);
    if (!pr) {
      const metadata = typeof o.metadata === 'function' ? o.metadata(req) : o.metadata;
      const created = await this.#client.x402.requirements({
        merchant_id: o.merchantId, amount: price, resource: req.url,
        ...(o.description ? { description: o.description } : {}), ...(metadata ? { metadata } : {}),
      });
      // The exact EVM scheme always carries `extra` (the token's EIP-712 name and version, the session).
      pr = bindPaymentRequired(this.#key, created.payment_required as X402PaymentRequired, this.#scope(req));
      this.#cache.set(cacheKey, pr);
    }
    return paymentRequiredReply(error ? { ...pr, error } : pr);
  }

  /**
   * One settlement per payment. The service's settle is idempotent per payload (a repeat is answered from the
   * payment, as success), which would let a client replay its PAYMENT-SIGNATURE for the resource again: so the
   * call carries an Idempotency-Key derived from the authorization, and an answer the service replays
   * (Idempotent-Replayed) is refused, unless every earlier attempt of this very call got no response (then the
   * replay is our own lost answer). The key is taken from the payload in one spelling (screen.ts), so a re-cased
   * copy is the same payment; and the service answers success for a payment once only, whatever the key.
   */
  async #settle(payload: X402PaymentPayload, auth: ExactAuthorization, signature: string, clientAddress: string | undefined): Promise<X402Decision> {
    const attempts: (Headers | null)[] = [];
    let result: X402SettleResult;
    try {
      result = await this.#core.request<X402SettleResult>('POST', '/v1/x402/settle', {
        body: { x402Version: 2, paymentPayload: withoutBinding(payload), paymentRequirements: payload.accepted },
        idempotencyKey: settleKey(payload, auth, signature), observe: (h) => attempts.push(h),
        ...(clientAddress ? { headers: { [CLIENT_ADDRESS_HEADER]: clientAddress } } : {}),
      });
    } catch (err) {
      // The service refused the request itself (4xx, e.g. the same payment in flight: 409): the client may pay again.
      if (err instanceof TrisettleError && err.status >= 400 && err.status < 500 && err.status !== 429) return settleFailedReply(payload, err.code);
      throw err;
    }
    const replayed = attempts.at(-1)?.get('idempotent-replayed') === 'true';
    const ownLostAnswer = attempts.length > 1 && attempts.slice(0, -1).every((h) => h === null);
    if (replayed && !ownLostAnswer) return settleFailedReply(payload, 'payment_already_used', result.payer);
    if (!result.success) return settleFailedReply(payload, result.errorReason ?? 'settlement_failed', result.payer);
    return this.#paid(payload, result);
  }

  #paid(payload: X402PaymentPayload, result: X402SettleResult): X402Decision {
    this.#cache.forgetSession(payload.accepted.extra.trisettle_session);
    const receipt: X402Receipt = {
      payer: result.payer ?? '', transaction: result.transaction, network: result.network,
      session: String(payload.accepted.extra.trisettle_session ?? ''), order: result.order ?? null,
    };
    const response: X402SettleResponse = { success: true, transaction: result.transaction, network: result.network, payer: receipt.payer, amount: payload.accepted.amount };
    return { paid: true, receipt, headers: { [PAYMENT_RESPONSE_HEADER]: encodeX402Header(response), 'Access-Control-Expose-Headers': PAYMENT_RESPONSE_HEADER } };
  }
}

/** The end client's address, which the service's refusal bucket counts by (secret-key callers only). */
export const CLIENT_ADDRESS_HEADER = 'Trisettle-Client-Address';

/** The same payment (session, payer, nonce, signature, each lower-case hex) always gets the same key; anything else another. */
function settleKey(payload: X402PaymentPayload, auth: ExactAuthorization, signature: string): string {
  const id = JSON.stringify([payload.accepted.extra.trisettle_session, auth.from, auth.nonce, signature]);
  return `x402-settle-${createHash('sha256').update(id).digest('hex')}`;
}

/**
 * Builds the decision function. Each unpaid request costs the platform one order (one API call, a few rows, no
 * chain call) unless `requirementsCacheSeconds` reuses one; the service's per-platform rate limit applies.
 * A 5xx or unreachable service is thrown (the framework's error handler answers), never a 402 inviting payment.
 */
export function createX402Paywall(options: X402PaywallOptions): (req: X402HttpRequest) => Promise<X402Decision> {
  const paywall = new Paywall(options);
  return (req) => paywall.decide(req);
}
