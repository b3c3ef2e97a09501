import { isAddressEqual, isErc6492Signature, parseErc6492Signature, type Address, type Hex } from 'viem';
import { AppError, notFound } from '../../lib/errors.js';
import { sha256Hex } from '../../lib/ids.js';
import { stateError } from '../../lib/transitions.js';
import { verifyHashSignature } from '../invitations/verify.js';
import type { SubscriptionsDeps } from './deps.js';
import { NO_END, permissionDigest, permissionJson } from './permission.js';
import { permissionOf } from './read-authorization.js';
import { subscriptionsRepo, type SubscriptionRow } from './repo.js';
import { serializeSubscription } from './serialize.js';
import { startCharge } from './start-charge.js';
import { SUBSCRIPTION_TRANSITIONS } from './state.js';
import { transitionSubscription } from './transition.js';

export type AuthorizeInput = { payer: Address; start: number; signature: string; permit?: { value: string; deadline: string; signature: string } | undefined };

/** Refused signatures a link accepts before it refuses every further attempt without checking (each may cost an eth_call). */
export const MAX_AUTHORIZE_FAILURES = 10;
/** The most gas a contract wallet's signature check may burn (the deployless ERC-6492 validator's eth_call). */
export const VERIFY_GAS = 500_000n;
/** How old the signed `start` may be: the page's GET gave the chain's clock then; the payer had this long to sign. */
export const START_MAX_AGE_SECONDS = 3_600;

/** Everything decided from the row and the body alone (no RPC): 404/409/422 before any signature is checked. */
function guard(s: SubscriptionRow | undefined, input: AuthorizeInput, chainNowSec: number): asserts s is SubscriptionRow {
  if (!s) throw notFound('subscription');
  if (s.state !== 'incomplete') {
    throw s.state === 'expired' || s.state === 'canceled' ? stateError(`Subscription ${s.id}`, SUBSCRIPTION_TRANSITIONS, s.state, 'activate', 'authorization')
      : new AppError('invalid_state', `Subscription ${s.id} is already authorized (${s.state}).`);
  }
  if (chainNowSec >= Math.floor(s.expires_at.getTime() / 1000)) throw new AppError('invalid_state', `The authorization link expired at ${s.expires_at.toISOString()}.`);
  if (s.authorize_failures >= MAX_AUTHORIZE_FAILURES) throw new AppError('rate_limited', 'Too many refused signatures for this link; ask the platform for a new one.');
  if (s.payer_address && !isAddressEqual(s.payer_address as Address, input.payer)) throw new AppError('payer_mismatch', 'This subscription is locked to another wallet.', 'payer');
  const createdSec = Math.floor(s.created_at.getTime() / 1000);
  if (input.start > chainNowSec || input.start < chainNowSec - START_MAX_AGE_SECONDS || input.start < createdSec - 60) {
    throw new AppError('validation_failed', `start must be the typed data's message.start, within the last ${START_MAX_AGE_SECONDS} s of chain time.`, 'start');
  }
  if (input.permit && BigInt(input.permit.value) < s.amount) throw new AppError('validation_failed', 'permit.value must cover at least one period.', 'permit');
}

/**
 * POST /v1/subscriptions/authorize/{token} (public). guard → verify the payer's EIP-712 signature of the permission
 * (EOA locally; ERC-1271 / ERC-6492 by one gas-capped eth_call) outside any transaction → lock, re-check, store the
 * permission and activate (subscription.activated) with the first charge queued in the same transaction. A refused
 * signature is counted on the link (MAX_AUTHORIZE_FAILURES bounds the RPC one link can cost).
 */
export async function authorizeSubscription(deps: SubscriptionsDeps, token: string, input: AuthorizeInput) {
  const tokenHash = sha256Hex(token);
  const found = await subscriptionsRepo.findPublic(deps.db, tokenHash);
  if (!found) throw notFound('subscription');
  const chainNow = deps.chains.get(found.chain_id).clock.now();
  const nowSec = Math.floor(chainNow.getTime() / 1000);
  guard(found, input, nowSec);
  const p = permissionOf(found, input.payer, input.start);
  const digest = permissionDigest(found.chain_id, found.manager_address as Address, p);
  const ok = await verifyHashSignature(() => deps.chains.get(found.chain_id).publicClient, input.payer, digest, input.signature as Hex, VERIFY_GAS);
  if (!ok) {
    await subscriptionsRepo.countFailure(deps.db, found.id);
    throw new AppError('invalid_signature', 'The signature is not the payer\'s signature of this subscription\'s permission.', 'signature');
  }
  // The manager checks ERC-1271 on the deployed wallet: it gets the inner signature of an ERC-6492 wrapper.
  const stored = isErc6492Signature(input.signature as Hex) ? parseErc6492Signature(input.signature as Hex).signature : input.signature;
  const out = await deps.db.transaction().execute(async (tx) => {
    const s = await subscriptionsRepo.lockByToken(tx, tokenHash);
    guard(s, input, nowSec);
    const periodEnd = new Date((p.start + p.period) * 1000);
    const active = await transitionSubscription(tx, s, 'activate', {
      payer: input.payer, permission: JSON.stringify(permissionJson(p)), permission_hash: digest.toLowerCase(), payer_signature: stored,
      permit: input.permit ? JSON.stringify(input.permit) : null, start_at: new Date(p.start * 1000), end_at: p.end === NO_END ? null : new Date(p.end * 1000),
      authorized_at: deps.clock.now(), current_period_start: new Date(p.start * 1000), current_period_end: periodEnd, next_period: 0, next_charge_at: periodEnd,
    }, deps.clock.now());
    await startCharge(deps, tx, active, chainNow);
    return serializeSubscription((await subscriptionsRepo.lockById(tx, s.id))!);
  });
  deps.wake();
  return out;
}
