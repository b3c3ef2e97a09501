/**
 * Per-order deposit addresses (contracts/src/DepositFactory.sol, docs/deposits.md): the DepositTerms of an order and
 * the clone's CREATE2 address, computed off-chain exactly as DepositFactory.predict does (test/chain/deposit-terms.test.ts
 * compares the two on anvil), so the API hands out an address without an RPC call.
 */
import { concat, encodeAbiParameters, getAddress, getContractAddress, keccak256, numberToHex, type Address, type Hex } from 'viem';
import type { PayOrderMessage } from './eip712.js';

export type DepositTerms = {
  orderId: Hex; token: Address; amount: bigint; merchant: Address; platform: Address;
  serviceFee: bigint; platformFee: bigint; reserveHold: bigint; deadline: bigint;
};

/** Field order is part of every deposit address (IDepositForwarder.sol): do not reorder. */
const DEPOSIT_TERMS_ABI = {
  type: 'tuple',
  components: [
    { name: 'orderId', type: 'bytes32' }, { name: 'token', type: 'address' }, { name: 'amount', type: 'uint256' },
    { name: 'merchant', type: 'address' }, { name: 'platform', type: 'address' }, { name: 'serviceFee', type: 'uint256' },
    { name: 'platformFee', type: 'uint256' }, { name: 'reserveHold', type: 'uint256' }, { name: 'deadline', type: 'uint256' },
  ],
} as const;

/** The terms of an order's PayOrder without its payer and captureDeadline; `deadline` is the forwarder's own (the order's, or later for late_payment accept). */
export function depositTermsOf(msg: PayOrderMessage, deadline: bigint = msg.deadline): DepositTerms {
  return {
    orderId: msg.orderId, token: msg.token, amount: msg.amount, merchant: msg.merchant, platform: msg.platform,
    serviceFee: msg.serviceFee, platformFee: msg.platformFee, reserveHold: msg.reserveHold, deadline,
  };
}

/** The PayOrder the service signs for a deposit: payer = the deposit address, captureDeadline 0 (DepositForwarder._payOrder). */
export function depositPayOrder(terms: DepositTerms, deposit: Address): PayOrderMessage {
  return { ...terms, payer: deposit, captureDeadline: 0n };
}

/** The forwarder implementation: the factory's first CREATE (a contract's nonce starts at 1, EIP-161). */
export const depositImplementationOf = (factory: Address): Address => getContractAddress({ from: factory, nonce: 1n });

/** solady LibClone.initCode(implementation, args): the ERC-1167 proxy with immutable args appended. */
function cloneInitCode(implementation: Address, args: Hex): Hex {
  const n = (args.length - 2) / 2;
  if (n > 0xffd2) throw new Error('clone args too long');
  return concat([
    '0x61', numberToHex(0x2d + n, { size: 2 }), '0x3d81600a3d39f3363d3d373d3d3d363d73',
    implementation, '0x5af43d82803e903d91602b57fd5bf3', args,
  ]);
}

/** DepositFactory.predict(terms, refundTo), off-chain (without the factory's checks: see badRefundTo and the API's). */
export function predictDepositAddress(p: { factory: Address; router: Address; terms: DepositTerms; refundTo: Address }): Address {
  const args = encodeAbiParameters([{ type: 'address' }, DEPOSIT_TERMS_ABI, { type: 'address' }], [p.router, p.terms, p.refundTo]);
  const initCode = cloneInitCode(depositImplementationOf(p.factory), args);
  return getAddress(getContractAddress({ opcode: 'CREATE2', from: p.factory, salt: p.terms.orderId, bytecodeHash: keccak256(initCode) }));
}

/** Why the factory would refuse `refundTo` (DepositFactory._check), or null. The token is refused too: funds "returned" to it are lost. */
export function badRefundTo(refundTo: Address, p: { factory: Address; router: Address; token: Address; deposit: Address }): string | null {
  const to = refundTo.toLowerCase();
  if (/^0x0{40}$/.test(to)) return 'the zero address';
  const named: [string, Address][] = [
    ['the router', p.router], ['the deposit factory', p.factory], ['the deposit implementation', depositImplementationOf(p.factory)],
    ['the token', p.token], ['the deposit address itself', p.deposit],
  ];
  for (const [what, addr] of named) if (to === addr.toLowerCase()) return what;
  return null;
}
