import { getAddress, hashTypedData, type Address, type Hex } from 'viem';
import { payOrderFromJson, payOrderTypes, type PayOrderJson, type PayOrderMessage, type RouterDomain } from '../../chain/eip712.js';
import type { TokenDomain } from './token-domain.js';

/** USDC's ERC-3009 type (FiatTokenV2_2 EIP3009.sol): field order is part of the type hash. */
export const receiveWithAuthorizationTypes = {
  ReceiveWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

/** What the relay needs of an order row: the stored signed PayOrder and its amount. */
export type SignedOrder = { eip712: unknown; signature: string; amount: bigint };

export function payOrderOf(order: SignedOrder): { message: PayOrderMessage; domain: RouterDomain } {
  const json = order.eip712 as PayOrderJson;
  return { message: payOrderFromJson(json), domain: { ...json.domain, verifyingContract: getAddress(json.domain.verifyingContract) } };
}

/** Nonces already hashed, keyed by the exact stored PayOrder JSON (a signed order never changes); bounded. */
const nonces = new Map<string, Hex>();
const NONCES_KEPT = 10_000;

/**
 * The ERC-3009 nonce that authorises this order and nothing else: the router's hashPayOrder(order)
 * (docs/gasless.md). Memoised: the session read and the relay check both need it, and keccak in JS is not free.
 */
export function payOrderNonce(order: SignedOrder): Hex {
  const key = JSON.stringify(order.eip712);
  const hit = nonces.get(key);
  if (hit) return hit;
  const { message, domain } = payOrderOf(order);
  const nonce = hashTypedData({ domain, types: payOrderTypes, primaryType: 'PayOrder', message });
  if (nonces.size >= NONCES_KEPT) nonces.delete(nonces.keys().next().value!);
  nonces.set(key, nonce);
  return nonce;
}

/** validBefore as offered: the deadline + 1, the latest the router accepts (ERC-3009 is exclusive, the deadline inclusive). */
export const validBeforeOf = (order: SignedOrder): bigint => payOrderOf(order).message.deadline + 1n;

/** The typed data the buyer signs, `from` left for the page to fill in. */
export function gaslessTypedData(order: SignedOrder, domain: TokenDomain) {
  const { message, domain: router } = payOrderOf(order);
  return {
    domain: { name: domain.name, version: domain.version, chainId: domain.chainId, verifyingContract: domain.verifyingContract },
    types: { ReceiveWithAuthorization: receiveWithAuthorizationTypes.ReceiveWithAuthorization.map((f) => ({ ...f })) },
    primaryType: 'ReceiveWithAuthorization' as const,
    message: {
      from: null,
      to: router.verifyingContract as string,
      value: message.amount.toString(),
      validAfter: '0',
      validBefore: validBeforeOf(order).toString(),
      nonce: payOrderNonce(order) as string,
    },
  };
}

export type Authorization = { from: Address; validAfter: bigint; validBefore: bigint; nonce: Hex; signature: Hex };
