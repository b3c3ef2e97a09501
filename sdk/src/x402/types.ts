/**
 * x402 v2 wire types (the subset a resource server reads and writes), as `@x402/core` 2.27 defines them,
 * written out here so the SDK keeps no runtime dependency.
 */

/** One way to pay: for Trisettle, scheme `exact` on `eip155:<chain id>`, USDC, `payTo` = the router. */
export type X402PaymentRequirements = {
  scheme: string;
  network: string;
  /** Base units (USDC: 6 decimals), a decimal string. */
  amount: string;
  asset: string;
  payTo: string;
  maxTimeoutSeconds: number;
  extra: Record<string, unknown>;
};

export type X402ResourceInfo = { url: string; description?: string; mimeType?: string };

/** The body of a 402 and, base64 JSON, its `PAYMENT-REQUIRED` header. */
export type X402PaymentRequired = {
  x402Version: 2;
  error?: string;
  resource: X402ResourceInfo;
  accepts: X402PaymentRequirements[];
  extensions?: Record<string, unknown>;
};

/** What the client sends back, base64 JSON in `PAYMENT-SIGNATURE`: its signed authorization and the requirement it accepted. */
export type X402PaymentPayload = {
  x402Version: 2;
  resource?: X402ResourceInfo;
  accepted: X402PaymentRequirements;
  payload: Record<string, unknown>;
  extensions?: Record<string, unknown>;
};

/** Base64 JSON in `PAYMENT-RESPONSE`. */
export type X402SettleResponse = {
  success: boolean;
  errorReason?: string;
  payer?: string;
  transaction: string;
  network: string;
  amount?: string;
};

export const PAYMENT_REQUIRED_HEADER = 'PAYMENT-REQUIRED';
export const PAYMENT_SIGNATURE_HEADER = 'PAYMENT-SIGNATURE';
export const PAYMENT_RESPONSE_HEADER = 'PAYMENT-RESPONSE';
