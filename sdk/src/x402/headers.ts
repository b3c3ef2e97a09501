import type { X402PaymentPayload, X402PaymentRequired, X402SettleResponse } from './types.js';

/** A PAYMENT-SIGNATURE larger than this is refused before it is decoded (an EIP-3009 payload is about 1 KB). */
export const MAX_HEADER_LENGTH = 16_384;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Standard base64 of the UTF-8 JSON, as `@x402/core` encodes every x402 header. */
export function encodeX402Header(value: X402PaymentRequired | X402PaymentPayload | X402SettleResponse): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64');
}

export class X402HeaderError extends Error {
  override readonly name = 'X402HeaderError';
}

/** Decodes a base64 JSON header; throws X402HeaderError on anything else. */
export function decodeX402Header<T = unknown>(header: string): T {
  const text = header.trim();
  if (text.length === 0 || text.length > MAX_HEADER_LENGTH || text.length % 4 !== 0 || !BASE64.test(text)) {
    throw new X402HeaderError('not a base64 header of acceptable length');
  }
  try {
    return JSON.parse(Buffer.from(text, 'base64').toString('utf8')) as T;
  } catch {
    throw new X402HeaderError('not base64 JSON');
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isText = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length <= 256;

/** The shape checks a v2 exact payment needs before anything is sent to the service; the service checks the rest. */
export function parsePaymentPayload(header: string): X402PaymentPayload {
  const p = decodeX402Header<Record<string, unknown>>(header);
  if (!isRecord(p)) throw new X402HeaderError('payload is not an object');
  if (p.x402Version !== 2) throw new X402HeaderError('x402Version must be 2');
  if (!isRecord(p.payload)) throw new X402HeaderError('payload.payload is missing');
  const a = p.accepted;
  if (!isRecord(a) || !isText(a.scheme) || !isText(a.network) || !isText(a.amount) || !isText(a.asset) || !isText(a.payTo)
    || typeof a.maxTimeoutSeconds !== 'number' || !isRecord(a.extra)) {
    throw new X402HeaderError('payload.accepted is not a payment requirement');
  }
  if (p.extensions !== undefined && !isRecord(p.extensions)) throw new X402HeaderError('payload.extensions is not an object');
  return p as X402PaymentPayload;
}
