import type { Core, RequestOptions } from '../core.js';
import type { components } from '../generated/openapi.js';

type Schemas = components['schemas'];
/** Body of POST /v1/x402/requirements: merchant, amount (human units), resource URL, description, metadata, payer lock. */
export type CreateX402RequirementsParams = Schemas['X402RequirementsRequest'];
/** A fresh order and its checkout session, with the x402 v2 PaymentRequired that pays it. */
export type X402Requirements = Schemas['X402Requirements'];
/** Facilitator-style body of verify and settle (x402's camelCase). */
export type X402FacilitatorParams = Schemas['X402FacilitatorRequest'];
export type X402VerifyResult = Schemas['X402VerifyResponse'];
export type X402SettleResult = Schemas['X402SettleResponse'];
/** The order an x402 payment paid, as the settle answer gives it (it confirms at depth, as every order). */
export type X402OrderReceipt = Schemas['X402Receipt'];

/** x402 for a platform's own API: Trisettle as the facilitator (secret key). */
export class X402Api {
  constructor(private readonly core: Core) {}
  /** A fresh order for `merchant_id` and `amount`, and the PaymentRequired a 402 carries. 201. */
  requirements(params: CreateX402RequirementsParams, o?: RequestOptions) {
    return this.core.request<X402Requirements>('POST', '/v1/x402/requirements', { ...o, body: params });
  }
  /** Checks a client's PAYMENT-SIGNATURE payload against the requirement it accepted; sends nothing. */
  verify(params: X402FacilitatorParams, o?: RequestOptions) {
    return this.core.request<X402VerifyResult>('POST', '/v1/x402/verify', { ...o, body: params });
  }
  /**
   * Verifies, then relays the authorization through the router, which splits it as payOrder does; waits until
   * mined. Idempotent per payload on the service: a repeat is answered as the first was (see x402Paywall).
   */
  settle(params: X402FacilitatorParams, o?: RequestOptions) {
    return this.core.request<X402SettleResult>('POST', '/v1/x402/settle', { ...o, body: params });
  }
}
