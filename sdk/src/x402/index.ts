/** `@trisettle/sdk/x402`: the framework-free paywall core, the x402 header codec and wire types. */
export { createX402Paywall, type X402Decision, type X402HttpRequest, type X402PaywallOptions, type X402Receipt } from './paywall.js';
export { decodeX402Header, encodeX402Header, parsePaymentPayload, X402HeaderError } from './headers.js';
export { BINDING_EXTENSION } from './binding.js';
export { CLIENT_ADDRESS_HEADER } from './paywall.js';
export { screenPayment, type ExactAuthorization, type Screened } from './screen.js';
export type {
  CreateX402RequirementsParams, X402FacilitatorParams, X402OrderReceipt, X402Requirements, X402SettleResult, X402VerifyResult,
} from './api.js';
export * from './types.js';
