import { createHmac, timingSafeEqual } from 'node:crypto';
import type { X402PaymentPayload, X402PaymentRequired, X402PaymentRequirements } from './types.js';

/**
 * Why a binding: every Trisettle requirement is a valid way to pay *some* order of the platform, and the
 * service checks a payment against the order it names, not against the route that is being paid for. Without
 * a binding, a client could pay a 0.01 route's requirement (or another merchant's) and send that payment to a
 * 10.00 route. The paywall therefore MACs what it offered (the session, the terms, the merchant, the method and
 * URL) into an x402 extension, which the client echoes unchanged in its payload (x402 v2: server-declared
 * extensions are echoed), and settles only a payload whose MAC matches this request. The key is derived from
 * the platform's secret key, so every instance of the API verifies what any instance offered, with no state.
 */
export const BINDING_EXTENSION = 'trisettle';
const SCHEMA = { type: 'object', properties: { binding: { type: 'string' } }, required: ['binding'] };

export type BindingScope = { merchantId: string; method: string; url: string };

function mac(key: Buffer, r: X402PaymentRequirements, scope: BindingScope): Buffer {
  const terms = [r.scheme, r.network, r.amount, r.asset.toLowerCase(), r.payTo.toLowerCase(), r.maxTimeoutSeconds, r.extra.trisettle_session];
  return createHmac('sha256', key).update(JSON.stringify(['x402-binding-v1', ...terms, scope.merchantId, scope.method, scope.url])).digest();
}

/** The PaymentRequired the service built, with this scope's binding for each of its accepts. */
export function bindPaymentRequired(key: Buffer, pr: X402PaymentRequired, scope: BindingScope): X402PaymentRequired {
  const bindings = pr.accepts.map((r) => mac(key, r, scope).toString('base64url'));
  return { ...pr, extensions: { ...pr.extensions, [BINDING_EXTENSION]: { info: { binding: bindings.join('.') }, schema: SCHEMA } } };
}

/** True when the payload's accepted requirement is one this scope offered. */
export function isBound(key: Buffer, payload: X402PaymentPayload, scope: BindingScope): boolean {
  const ext = payload.extensions?.[BINDING_EXTENSION] as { info?: { binding?: unknown } } | undefined;
  const given = ext?.info?.binding;
  if (typeof given !== 'string' || given.length > 1024) return false;
  const expected = mac(key, payload.accepted, scope);
  return given.split('.').some((b) => {
    const got = Buffer.from(b, 'base64url');
    return got.length === expected.length && timingSafeEqual(got, expected);
  });
}

/** The payload as the client would have sent it without the binding, for the service. */
export function withoutBinding(payload: X402PaymentPayload): X402PaymentPayload {
  if (!payload.extensions || !(BINDING_EXTENSION in payload.extensions)) return payload;
  const { [BINDING_EXTENSION]: _, ...rest } = payload.extensions;
  const { extensions: __, ...bare } = payload;
  return Object.keys(rest).length > 0 ? { ...bare, extensions: rest } : bare;
}
