import { getAddress } from 'viem';
import type { Db } from '../../db/client.js';
import { AppError, invalid, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { formatUnits, parseAmount } from '../../lib/money.js';
import type { Caller } from '../orders/prepare.js';
import type { OrderRow } from '../orders/repo.js';
import { latestBlock } from '../relay/latest-block.js';
import type { TokenDomain } from '../relay/token-domain.js';
import { depthOf, onChain, receiptOf, settleResponse } from './answer.js';
import type { X402Deps } from './context.js';
import type { X402Payload } from './payload.js';
import { x402Repo, type SessionWithOrder, type X402PaymentRow } from './repo.js';
import { checkPayable, paymentRequiredOf } from './requirements.js';
import { enqueueSettlement } from './settle.js';
import { UsedAtToken, verifyPayment, X402Refusal } from './verify.js';
import { adoptUsedAuthorization } from './adopt.js';
import { waitForSettlement } from './wait.js';

export type RequirementsInput = {
  merchant_id: string; amount: string; chain_id?: number | undefined; description?: string | undefined; resource?: string | undefined;
  metadata?: Record<string, unknown> | undefined; payer_address?: `0x${string}` | undefined; expires_in_seconds?: number | undefined;
};
export type FacilitatorBody = { x402Version: number; paymentPayload: X402Payload; paymentRequirements: NonNullable<X402Payload['accepted']> };

/** The merchant's and platform's display names (the description names both), read before the session is created. */
async function namesOf(db: Db, platformId: string, merchantId: string) {
  return db.selectFrom('merchants as m').innerJoin('platforms as p', 'p.id', 'm.platform_id').select(['m.name as merchant', 'p.name as platform'])
    .where('m.platform_id', '=', platformId).where('m.external_id', '=', merchantId).executeTakeFirst();
}

/**
 * POST /v1/x402/requirements: a checkout session and its order (checkout's own creation, so the same split,
 * signature and payer lock), answered with the v2 PaymentRequired of it. Recorded for the Idempotency-Key as
 * answered. `resource` replaces the x402 URL as the resource the SDK's route names; the x402 URL still pays it.
 */
export async function createRequirements(deps: X402Deps, caller: Caller, input: RequirementsInput) {
  const chainId = input.chain_id ?? deps.chains.list()[0]?.chainId;
  if (chainId === undefined) throw new AppError('unsupported_chain', 'No chain is configured on this deployment.', 'chain_id');
  const rt = deps.chains.get(chainId);
  const parsed = parseAmount(input.amount);
  if (parsed.ok && parsed.units < deps.config.x402MinAmount) {
    throw invalid('amount', `amount must be at least ${formatUnits(deps.config.x402MinAmount)} USDC for x402 (X402_MIN_AMOUNT).`);
  }
  const names = await namesOf(deps.db, caller.platformId, input.merchant_id);
  if (!names) throw notFound('merchant');
  const domain = await onChain(() => deps.tokenDomains.get(rt.publicClient, chainId, rt.usdc));
  const now = BigInt(Math.floor(rt.clock.now().getTime() / 1000));
  const create = { merchant_id: input.merchant_id, order_no: newId('x402'), chain_id: chainId, amount: input.amount,
    payer_address: input.payer_address, metadata: input.metadata, expires_in_seconds: input.expires_in_seconds ?? 600 };
  return deps.checkout.createAs(caller, create, (session, order) => {
    const found: SessionWithOrder = {
      session: { id: session.id, state: 'open', expires_at: new Date(session.expires_at), payer_address: session.payer_address, platform_id: caller.platformId,
        merchant_name: names.merchant, platform_name: names.platform },
      order,
    };
    const required = paymentRequiredOf(deps, found, session.session_token, domain, now);
    if (input.resource !== undefined) required.resource.url = input.resource;
    if (input.description !== undefined) required.resource.description = `${input.description} (${required.resource.description})`;
    return { object: 'x402_requirements' as const, session_id: session.id, order_id: order.id, x402_url: session.x402_url, payment_required: required };
  });
}

/** The session a facilitator request names (`paymentRequirements.extra.trisettle_session`); another platform's is 404. */
async function sessionOfRequirements(deps: X402Deps, platformId: string, body: FacilitatorBody): Promise<SessionWithOrder> {
  const id = body.paymentRequirements.extra?.['trisettle_session'];
  if (typeof id !== 'string') throw new AppError('validation_failed', 'paymentRequirements.extra.trisettle_session must name the checkout session (as /v1/x402/requirements gives it).', 'paymentRequirements.extra.trisettle_session');
  const found = await x402Repo.sessionById(deps.db, id);
  if (!found || found.session.platform_id !== platformId) throw notFound('checkout session');
  return found;
}

type Checked = { found: SessionWithOrder; now: bigint; payload: X402Payload };

async function prepare(deps: X402Deps, platformId: string, body: FacilitatorBody): Promise<Checked> {
  const found = await sessionOfRequirements(deps, platformId, body);
  const rt = deps.chains.get(found.order.chain_id);
  const block = await onChain(() => latestBlock(rt.publicClient));
  rt.clock.observe(block.timestamp);
  // The requirements the resource server offered are the ones checked: they must be this session's (verify.ts).
  return { found, now: block.timestamp, payload: { ...body.paymentPayload, accepted: body.paymentRequirements } };
}

const refusalOf = (err: unknown): { reason: string; message: string } => {
  if (err instanceof X402Refusal) return { reason: err.reason, message: err.message };
  if (err instanceof AppError && err.code === 'session_expired') return { reason: 'trisettle_session_expired', message: err.message };
  if (err instanceof AppError && err.code === 'order_not_payable') return { reason: 'trisettle_order_not_payable', message: err.message };
  throw err;
};

/** POST /v1/x402/verify: the facilitator's VerifyResponse; nothing is sent or written. */
export async function verifyForPlatform(deps: X402Deps, platformId: string, body: FacilitatorBody) {
  const c = await prepare(deps, platformId, body);
  const payer = getAddress(c.payload.payload.authorization.from);
  try {
    checkPayable(c.found, c.now);
    await onChain(() => verifyPayment(deps, c.found, c.payload, c.now));
    return { isValid: true, payer };
  } catch (err) {
    const r = refusalOf(err);
    return { isValid: false, invalidReason: r.reason, invalidMessage: r.message, payer };
  }
}

/**
 * POST /v1/x402/settle: verify, relay, wait until mined (wait.ts). The same authorization again (same payer,
 * nonce and signature, for this session: a lost answer, or a replay) is never sent twice: it waits on its
 * payment, and only the first answer that reports it paid is `success: true` (x402Repo.claimAnswer); every other
 * is `success: false, errorReason: invalid_exact_evm_nonce_already_used` with the payment's transaction, so a
 * paywall serves one response per payment. A platform's own lost answer is replayed by its Idempotency-Key.
 */
export async function settleForPlatform(deps: X402Deps, platformId: string, body: FacilitatorBody) {
  const c = await prepare(deps, platformId, body);
  const a = c.payload.payload.authorization;
  const payer = getAddress(a.from);
  const network = `eip155:${c.found.order.chain_id}`;
  const seen = await x402Repo.byNonce(deps.db, c.found.order.chain_id, payer, a.nonce);
  let payment: X402PaymentRow;
  if (seen && seen.session_id === c.found.session.id && seen.signature.toLowerCase() === c.payload.payload.signature.toLowerCase()) {
    payment = seen;
  } else {
    try {
      checkPayable(c.found, c.now);
      const verified = await onChain(() => verifyPayment(deps, c.found, c.payload, c.now));
      payment = await onChain(() => enqueueSettlement(deps, verified, c.now));
    } catch (err) {
      if (err instanceof UsedAtToken) await onChain(() => adoptUsedAuthorization(deps, err.verified));
      const r = refusalOf(err);
      return { ...settleResponse({ success: false, errorReason: r.reason, transaction: null, network, payer }), errorMessage: r.message, order: receiptOf(c.found.order, { txHash: null, confirmations: depthOf(deps, c.found.order.chain_id) }) };
    }
  }
  const result = await waitForSettlement(deps, payment.id);
  const order = receiptOf(await orderNow(deps, c.found.session.id), { txHash: result.txHash, confirmations: depthOf(deps, c.found.order.chain_id) });
  if (result.outcome === 'mined') {
    if (await x402Repo.claimAnswer(deps.db, payment.id)) return { ...settleResponse({ success: true, transaction: result.txHash, network, payer }), order };
    return { ...settleResponse({ success: false, errorReason: ALREADY_ANSWERED.reason, transaction: result.txHash, network, payer }), errorMessage: ALREADY_ANSWERED.message, order };
  }
  const reason = result.outcome === 'pending' ? 'settlement_pending' : result.reason;
  return { ...settleResponse({ success: false, errorReason: reason, transaction: result.txHash, network, payer }), order };
}

/** Refusals that are the service's own state, not the payer's doing: not counted in the refusal bucket. */
const NOT_THE_PAYERS = new Set(['settlement_pending', 'trisettle_cap_reached', 'trisettle_relayer_budget_spent', 'trisettle_relay_unavailable', 'trisettle_order_already_paying']);
/** Whether a verify or settle answer counts as a refusal of the end client (api/middleware/relay-refusals.ts). */
export const countsAsRefusal = (r: { isValid?: boolean; success?: boolean; invalidReason?: string; errorReason?: string }): boolean =>
  (r.isValid === false || r.success === false) && !NOT_THE_PAYERS.has(r.invalidReason ?? r.errorReason ?? '');

/** A paid payment presented again: it paid for one response, which was answered already. */
export const ALREADY_ANSWERED = {
  reason: 'invalid_exact_evm_nonce_already_used',
  message: 'This authorization already paid, and its success was answered once; one payment pays for one response.',
} as const;

const orderNow = async (deps: X402Deps, sessionId: string): Promise<OrderRow> => (await x402Repo.sessionById(deps.db, sessionId))!.order;

export type { TokenDomain };
