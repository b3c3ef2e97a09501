export { Trisettle } from './client.js';
export { SDK_VERSION, type RequestOptions, type TrisettleOptions } from './core.js';
export { TrisettleConnectionError, TrisettleError } from './errors.js';
export { ListResult } from './pagination.js';
export {
  DEFAULT_TOLERANCE_SECONDS, signWebhook, standardWebhookSignature, verifyWebhook, WebhookVerificationError,
  type HeadersLike, type VerifyOptions, type WebhookVerificationReason,
} from './webhooks.js';
export type * from './types.js';
export type { components, paths, webhooks } from './generated/openapi.js';
