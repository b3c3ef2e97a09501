import { recoversTo } from './eoa-signature.js';
import type { X402PaymentPayload } from './types.js';

/** An `exact` EVM authorization in one spelling: addresses, nonce and signature lower-case 0x hex of exact length. */
export type ExactAuthorization = { from: string; to: string; value: string; validAfter: string; validBefore: string; nonce: string };
export type Screened =
  | { ok: true; payload: X402PaymentPayload; auth: ExactAuthorization; signature: string }
  | { ok: false; reason: string; payer?: string };

/** Room for the payer's clock running ahead of ours (the service allows the chain's clock the same). */
export const CLOCK_SKEW_SECONDS = 120;
/** An authorization must stay valid this long after it is checked, or it may lapse before it is mined (the service's floor). */
export const MIN_REMAINING_SECONDS = 6;

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const NONCE = /^0x[0-9a-fA-F]{64}$/;
const UINT = /^(0|[1-9][0-9]{0,77})$/;
/** Any signature the service takes: a 65-byte ECDSA one, or an ERC-1271 / ERC-6492 one of up to 4 KB. */
const SIGNATURE = /^0x(?:[0-9a-fA-F]{2}){1,4096}$/;
const ECDSA_HEX_LENGTH = 2 + 65 * 2;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const refuse = (reason: string, payer?: string): Screened => ({ ok: false, reason, ...(payer ? { payer } : {}) });

/**
 * Every check of an `exact` EVM payment that needs neither the chain nor the service, so junk never reaches
 * /v1/x402/settle: the scheme, the authorization's shape, its recipient and value against the requirement it
 * accepted, its window on our clock, and the signature's form. A 65-byte signature must recover to `from` (an
 * EOA's) unless `contractWallets` says a contract wallet may sign with 65 bytes (a 1-of-1 Safe does); any other
 * length is an ERC-1271 / ERC-6492 signature, which only the chain can check, and goes to the service.
 * Answers the payload in one spelling (lower-case hex), so a re-cased copy of a payment is the same payment.
 */
export function screenPayment(payload: X402PaymentPayload, nowSeconds: number, o: { contractWallets?: boolean } = {}): Screened {
  const a = payload.accepted;
  if (a.scheme !== 'exact') return refuse('invalid_exact_evm_scheme');
  const chain = /^eip155:([1-9][0-9]{0,15})$/.exec(a.network);
  if (!chain) return refuse('invalid_exact_evm_network_mismatch');
  const inner = payload.payload;
  const raw = isRecord(inner.authorization) ? inner.authorization : {};
  const { from, to, value, validAfter, validBefore, nonce } = raw;
  if (![from, to].every((x) => typeof x === 'string' && ADDRESS.test(x)) || ![value, validAfter, validBefore].every((x) => typeof x === 'string' && UINT.test(x))
    || typeof nonce !== 'string' || !NONCE.test(nonce)) {
    return refuse('invalid_exact_evm_payload');
  }
  const auth: ExactAuthorization = {
    from: (from as string).toLowerCase(), to: (to as string).toLowerCase(), value: value as string, validAfter: validAfter as string,
    validBefore: validBefore as string, nonce: nonce.toLowerCase(),
  };
  if (auth.to !== a.payTo.toLowerCase()) return refuse('invalid_exact_evm_recipient_mismatch', auth.from);
  if (auth.value !== a.amount) return refuse('invalid_exact_evm_payload_authorization_value_mismatch', auth.from);
  const now = BigInt(nowSeconds);
  if (BigInt(auth.validAfter) > now + BigInt(CLOCK_SKEW_SECONDS)) return refuse('invalid_exact_evm_payload_authorization_valid_after', auth.from);
  const before = BigInt(auth.validBefore);
  if (before < now + BigInt(MIN_REMAINING_SECONDS) || before > now + BigInt(a.maxTimeoutSeconds) + BigInt(CLOCK_SKEW_SECONDS)) {
    return refuse('invalid_exact_evm_payload_authorization_valid_before', auth.from);
  }
  const sig = inner.signature;
  if (typeof sig !== 'string' || !SIGNATURE.test(sig)) return refuse('invalid_exact_evm_signature', auth.from);
  const signature = sig.toLowerCase();
  if (signature.length === ECDSA_HEX_LENGTH && !o.contractWallets) {
    const domain = { name: String(a.extra.name ?? ''), version: String(a.extra.version ?? ''), chainId: BigInt(chain[1]!), verifyingContract: a.asset.toLowerCase() };
    if (!ADDRESS.test(domain.verifyingContract) || !recoversTo(domain, auth, signature)) return refuse('invalid_exact_evm_signature', auth.from);
  }
  const normalised = { ...payload, payload: { ...inner, authorization: auth, signature } };
  return { ok: true, payload: normalised, auth, signature };
}
