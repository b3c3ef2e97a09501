import { z } from '@hono/zod-openapi';
import { getAddress, type Address, type Hex } from 'viem';

const Addr = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x address');
const Uint = z.string().regex(/^\d{1,78}$/, 'must be a decimal integer string');

/** The `exact` EVM payload: an ERC-3009 TransferWithAuthorization and its signature (65-byte ECDSA, ERC-1271 or ERC-6492). */
export const ExactEvmPayload = z.object({
  authorization: z.object({ from: Addr, to: Addr, value: Uint, validAfter: Uint, validBefore: Uint, nonce: z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'must be 32 bytes hex') }),
  signature: z.string().regex(/^0x[0-9a-fA-F]{2,8192}$/, 'must be hex'),
});

export const X402Requirements = z.object({
  scheme: z.string().max(32), network: z.string().max(64), amount: Uint, asset: Addr, payTo: Addr,
  maxTimeoutSeconds: z.number().int().nonnegative(), extra: z.record(z.string(), z.unknown()).optional(),
}).passthrough().openapi('X402PaymentRequirements');

/** x402 v2 PaymentPayload as the stock client sends it (resource, accepted, payload, extensions). */
export const X402PaymentPayload = z.object({
  x402Version: z.number().int(), payload: ExactEvmPayload, accepted: X402Requirements.optional(),
  resource: z.unknown().optional(), extensions: z.unknown().optional(),
}).passthrough().openapi('X402PaymentPayload');

export type X402Payload = z.infer<typeof X402PaymentPayload>;
export type TransferAuthorization = { from: Address; to: Address; value: bigint; validAfter: bigint; validBefore: bigint; nonce: Hex; signature: Hex };

export const authorizationOf = (p: X402Payload): TransferAuthorization => {
  const a = p.payload.authorization;
  return {
    from: getAddress(a.from), to: getAddress(a.to), value: BigInt(a.value), validAfter: BigInt(a.validAfter), validBefore: BigInt(a.validBefore),
    nonce: a.nonce.toLowerCase() as Hex, signature: p.payload.signature as Hex,
  };
};

/** PAYMENT-SIGNATURE: base64 JSON of a v2 PaymentPayload; anything else is null (answered as a bad payload, not a 500). */
export function decodePaymentSignature(header: string): X402Payload | null {
  if (header.length > 16_384 || !/^[A-Za-z0-9+/=_-]+$/.test(header)) return null;
  try {
    const r = X402PaymentPayload.safeParse(JSON.parse(Buffer.from(header, 'base64').toString('utf8')));
    return r.success ? r.data : null;
  } catch {
    return null;
  }
}
