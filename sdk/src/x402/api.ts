import type { Core, RequestOptions } from '../core.js';
import type { ComputedSplit, OrderState } from '../types.js';
import type { X402PaymentPayload, X402PaymentRequired, X402PaymentRequirements } from './types.js';

export type CreateX402RequirementsParams = {
  merchant_id: string;
  /** Human units, a decimal string ("0.05"). */
  amount: string;
  description?: string;
  /** The URL being paid for; becomes `resource.url`. */
  resource?: string;
  metadata?: Record<string, string>;
  /** Only this wallet may pay. */
  payer_address?: string;
};

/** A fresh order and its checkout session, with the x402 v2 PaymentRequired that pays it. */
export type X402Requirements = {
  session_id: string;
  order_id: string;
  x402_url: string;
  payment_required: X402PaymentRequired;
};

/** Facilitator-style body of verify and settle. */
export type X402FacilitatorParams = {
  x402Version: 2;
  paymentPayload: X402PaymentPayload;
  paymentRequirements: X402PaymentRequirements;
};

export type X402VerifyResult = { isValid: boolean; invalidReason?: string; invalidMessage?: string; payer?: string };

/** The order an x402 payment paid: its state when the answer was given (it confirms at depth, as every order). */
export type X402OrderReceipt = {
  object: 'x402_receipt'; order_id: string; state: OrderState | string; amount: string; token_address: string; computed_split: ComputedSplit;
};

export type X402SettleResult = {
  success: boolean;
  errorReason?: string;
  errorMessage?: string;
  payer?: string;
  /** The relayer's transaction hash ("" when nothing was sent). */
  transaction: string;
  network: string;
  order?: X402OrderReceipt;
};

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
  /** Verifies, then relays the authorization through the router, which splits it as payOrder does. */
  settle(params: X402FacilitatorParams, o?: RequestOptions) {
    return this.core.request<X402SettleResult>('POST', '/v1/x402/settle', { ...o, body: params });
  }
}
