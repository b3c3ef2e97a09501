import { getAddress, hashTypedData, parseAbi, type Address } from 'viem';
import { AppError } from '../../lib/errors.js';
import { formatUnits } from '../../lib/money.js';
import { verifyHashSignature } from '../invitations/verify.js';
import { checkInFlight, checkPayer } from '../relay/eligibility.js';
import { relayRepo } from '../relay/repo.js';
import { payOrderOf } from '../relay/typed-data.js';
import { CLOCK_SKEW_SECONDS, MIN_REMAINING_SECONDS, type X402Deps } from './context.js';
import { authorizationOf, type TransferAuthorization, type X402Payload } from './payload.js';
import { x402Repo, type SessionWithOrder } from './repo.js';
import { maxTimeoutOf, validBeforeLimit } from './requirements.js';

/** A payment refused: `reason` is an x402 invalidReason (the exact scheme's names where one fits, else trisettle_…). */
export class X402Refusal extends Error {
  constructor(readonly reason: string, message: string) {
    super(message);
  }
}
/** The token reports a verified authorization used: possibly front-run before this service accepted it (adopt.ts). */
export class UsedAtToken extends X402Refusal {
  constructor(readonly verified: Verified) {
    super('invalid_exact_evm_nonce_already_used', 'The token reports this authorization used or cancelled; if it moved the funds into the router, the order is completed from them.');
  }
}
const refuse = (reason: string, message: string): never => {
  throw new X402Refusal(reason, message);
};

export const transferWithAuthorizationTypes = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' }, { name: 'to', type: 'address' }, { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' }, { name: 'validBefore', type: 'uint256' }, { name: 'nonce', type: 'bytes32' },
  ],
} as const;
const tokenAbi = parseAbi(['function authorizationState(address, bytes32) view returns (bool)', 'function balanceOf(address) view returns (uint256)']);

export type Verified = { found: SessionWithOrder; auth: TransferAuthorization; router: Address };

/**
 * Every check of an x402 payment for a session's order, cheapest first, nothing sent (docs/x402.md): what the
 * payload says against what the order requires (scheme, network, asset, payTo and `to` = the router, value
 * exactly the amount), the window on the chain's clock `now`, the payer lock, the relay's eligibility (switch,
 * payer bans, one relay in flight per order and per payer), no x402 payment in flight or settled for the order
 * and the nonce unused here; then the chain: the signature (EOA, ERC-1271, ERC-6492) in the token's domain,
 * the nonce unused by the token and the payer's balance. Throws X402Refusal naming the first problem.
 */
export async function verifyPayment(deps: X402Deps, found: SessionWithOrder, payload: X402Payload, now: bigint): Promise<Verified> {
  const { order } = found;
  const auth = authorizationOf(payload);
  const router = payOrderOf(order).domain.verifyingContract;
  checkTerms(found, payload, auth, router);
  checkWindow(found, auth, now);
  if (order.payer_address && getAddress(order.payer_address) !== auth.from) refuse('trisettle_payer_mismatch', `This order is locked to payer ${getAddress(order.payer_address)}; the authorization is from ${auth.from}.`);
  await checkRelayable(deps, found, auth, now);
  await checkChain(deps, found, auth, router);
  return { found, auth, router };
}

function checkTerms(found: SessionWithOrder, payload: X402Payload, auth: TransferAuthorization, router: Address): void {
  const { order } = found;
  const a = payload.accepted;
  if (payload.x402Version !== 2) refuse('invalid_x402_version', 'Only x402Version 2 is accepted.');
  if (a && a.scheme !== 'exact') refuse('invalid_exact_evm_scheme', 'The scheme must be "exact".');
  if (a && a.network !== `eip155:${order.chain_id}`) refuse('invalid_exact_evm_network_mismatch', `The network must be eip155:${order.chain_id}.`);
  if (a && getAddress(a.asset) !== getAddress(order.token_address)) refuse('invalid_exact_evm_asset_mismatch', `The asset must be ${getAddress(order.token_address)}.`);
  if (auth.to !== router || (a && getAddress(a.payTo) !== router)) refuse('invalid_exact_evm_recipient_mismatch', `The authorization must pay the router ${router}.`);
  if (auth.value !== order.amount || (a && BigInt(a.amount) !== order.amount)) {
    refuse('invalid_exact_evm_payload_authorization_value_mismatch', `The authorization must be for exactly ${order.amount} base units.`);
  }
}

function checkWindow(found: SessionWithOrder, auth: TransferAuthorization, now: bigint): void {
  if (auth.validAfter > now) refuse('invalid_exact_evm_payload_authorization_valid_after', 'The authorization is not valid yet.');
  if (auth.validBefore < now + MIN_REMAINING_SECONDS) refuse('invalid_exact_evm_payload_authorization_valid_before', 'The authorization expires too soon to be settled.');
  if (auth.validBefore > validBeforeLimit(found)) refuse('invalid_exact_evm_payload_authorization_valid_before', 'The authorization lapses too close to the order\'s deadline (validBefore must be 120 s before it).');
  if (auth.validBefore > now + BigInt(maxTimeoutOf(found, now)) + CLOCK_SKEW_SECONDS) {
    refuse('invalid_exact_evm_payload_authorization_valid_before', 'The authorization lives longer than maxTimeoutSeconds.');
  }
}

async function checkRelayable(deps: X402Deps, found: SessionWithOrder, auth: TransferAuthorization, now: bigint): Promise<void> {
  if (!deps.config.gaslessEnabled || !deps.chains.relayer) refuse('trisettle_relay_unavailable', 'Relayed payment is switched off on this deployment.');
  if (found.order.amount < deps.config.x402MinAmount) {
    refuse('trisettle_amount_below_minimum', `x402 payment starts at ${formatUnits(deps.config.x402MinAmount)} USDC (X402_MIN_AMOUNT); this order is ${formatUnits(found.order.amount)}.`);
  }
  const order = await relayRepo.findOrder(deps.db, found.order.id, auth.from);
  if (!order) return refuse('trisettle_order_not_payable', 'The order is gone.');
  const used = await x402Repo.byNonce(deps.db, order.chain_id, auth.from, auth.nonce);
  if (used) refuse('invalid_exact_evm_nonce_already_used', 'This authorization was already presented (nonce used).');
  const blocking = await x402Repo.blockingForOrder(deps.db, order.id);
  if (blocking) refuse('trisettle_order_already_paying', `Order ${order.id} already has an x402 payment ${blocking.status === 'pending' ? 'in flight' : 'that paid it'}.`);
  try {
    checkInFlight(order, auth.from);
    await checkPayer(deps, order, auth.from, now);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    refuse(err.code === 'relay_in_flight' ? 'trisettle_payment_in_flight' : 'trisettle_payer_refused', err.message);
  }
}

async function checkChain(deps: X402Deps, found: SessionWithOrder, auth: TransferAuthorization, router: Address): Promise<void> {
  const { order } = found;
  const rt = deps.chains.get(order.chain_id);
  const token = getAddress(order.token_address);
  const domain = await deps.tokenDomains.get(rt.publicClient, order.chain_id, token);
  const digest = hashTypedData({
    domain, types: transferWithAuthorizationTypes, primaryType: 'TransferWithAuthorization',
    message: { from: auth.from, to: router, value: order.amount, validAfter: auth.validAfter, validBefore: auth.validBefore, nonce: auth.nonce },
  });
  const ok = await verifyHashSignature(() => rt.publicClient, auth.from, digest, auth.signature, deps.config.relayerGasLimit);
  if (!ok) refuse('invalid_exact_evm_signature', `The signature does not verify as ${auth.from}'s TransferWithAuthorization in the token's domain.`);
  const [usedOnChain, balance] = await Promise.all([
    rt.publicClient.readContract({ address: token, abi: tokenAbi, functionName: 'authorizationState', args: [auth.from, auth.nonce] }),
    rt.publicClient.readContract({ address: token, abi: tokenAbi, functionName: 'balanceOf', args: [auth.from] }),
  ]);
  if (usedOnChain) throw new UsedAtToken({ found, auth, router });
  if (balance < order.amount) refuse('invalid_exact_evm_insufficient_balance', `${auth.from} holds less than ${order.amount} base units.`);
}
