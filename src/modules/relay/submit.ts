import { BaseError, encodeFunctionData, getAddress, hashTypedData, type Address, type Hex } from 'viem';
import { paymentRouterAbi } from '../../chain/artifacts/PaymentRouter.js';
import type { Executor } from '../../db/client.js';
import { isUniqueViolation } from '../../db/errors.js';
import { AppError, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { recordResponseInTx } from '../idempotency/context.js';
import type { OrderRow } from '../orders/repo.js';
import { verifyHashSignature } from '../invitations/verify.js';
import { intentRow } from '../operator-txs/enqueue.js';
import { simulate } from '../operator-txs/simulate.js';
import { budgetRefused, checkBudget, relayFeeCap } from './budget.js';
import { checkAuthorization } from './check-authorization.js';
import { checkInFlight, checkOffer, checkPayer, relayInFlight, type FoundOrder } from './eligibility.js';
import { latestBlock } from './latest-block.js';
import { utcDay, type RelayDeps } from './context.js';
import { relayRepo } from './repo.js';
import { serializeRelay } from './serialize.js';
import { payOrderOf, receiveWithAuthorizationTypes, type Authorization } from './typed-data.js';

export type RelayTarget = { orderId: string; platformId: string | null; via: 'checkout' | 'api' };
export type RelayBody = { from: Address; valid_after: string; valid_before: string; nonce: string; signature: string };

/**
 * Accepts a buyer's signed ReceiveWithAuthorization for an order and enqueues payOrderWithAuthorization for
 * the relayer. Everything is checked first, cheapest first (docs/gasless.md): switch, order, the window offered,
 * the minimum amount; then on the chain's time: the authorization, one relay in flight per order and per payer,
 * the payer's ban, the platform's cap and the relayer's budget; then ONE simulation from the relayer with at most
 * RELAYER_GAS_LIMIT, which checks the signature in the token. A refusal throws the AppError naming it with
 * nothing sent. Then, in one transaction: the reservation of the relayer's day, a slot of the platform's day,
 * the relay row and the outbox intent, with the simulation's gas limit and the reservation's fee cap.
 */
export async function submitRelay(deps: RelayDeps, target: RelayTarget, body: RelayBody) {
  const from = getAddress(body.from);
  const order = await relayRepo.findOrder(deps.db, target.orderId, from);
  if (!order || (target.platformId !== null && order.platform_id !== target.platformId)) throw notFound('order');
  if (!deps.config.gaslessEnabled) throw new AppError('gasless_disabled');
  const relayer = deps.chains.relayer;
  if (!relayer) throw new AppError('service_unavailable', 'Gasless payment is not configured (RELAYER_PRIVATE_KEY).');
  const auth: Authorization = { from, validAfter: BigInt(body.valid_after), validBefore: BigInt(body.valid_before), nonce: body.nonce as Hex, signature: body.signature as Hex };
  checkOffer(deps, order, auth);
  const rt = deps.chains.get(order.chain_id);
  const block = await onChain(() => latestBlock(rt.publicClient));
  rt.clock.observe(block.timestamp);
  checkAuthorization(order, auth, block.timestamp);
  checkInFlight(order, from);
  await checkPayer(deps, order, from, block.timestamp);
  if (deps.config.gaslessDailyCap <= 0) throw capReached(deps);
  await checkBudget(deps, order.chain_id, block.timestamp);
  const router = payOrderOf(order).domain.verifyingContract;
  const calldata = payCalldata(order, auth);
  const gasLimit = await simulateRelay(deps, order, auth, router, calldata);
  const feeCap = await onChain(() => relayFeeCap(rt.publicClient));
  return accept(deps, { order, target, auth, now: block.timestamp, intent: { to: router, calldata, gasLimit, feeCap } });
}

/**
 * One simulation from the relayer (eth_simulateV1, or eth_estimateGas on a node without it) with at most
 * RELAYER_GAS_LIMIT: it proves the call succeeds, and with it that the token accepted the signature
 * (receiveWithAuthorization checks it, ECDSA or ERC-1271, over this very digest), and gives the gas limit. A call
 * that ran out of the ceiling, or whose limit would pass it, is 422 gas_limit_exceeded and nothing more is asked;
 * another refusal asks why, the signature checked off chain under the same ceiling (422 invalid_signature).
 */
async function simulateRelay(deps: RelayDeps, order: OrderRow, auth: Authorization, router: Address, calldata: Hex): Promise<bigint> {
  const ceiling = deps.config.relayerGasLimit;
  const rt = deps.chains.get(order.chain_id);
  const sim = await onChain(() => simulate(rt.publicClient, deps.chains.relayer!, router, calldata, { gas: ceiling }));
  const over = sim.ok ? sim.gasLimit > ceiling : sim.gasUsed !== undefined && sim.gasUsed * 10n >= ceiling * 9n;
  if (over) throw new AppError('gas_limit_exceeded', `This payment needs more gas than the relayer spends on one (${ceiling}); pay another way.`);
  if (sim.ok) return sim.gasLimit;
  await verifySignature(deps, order, auth);
  throw new AppError('simulation_failed', `payOrderWithAuthorization would revert: ${sim.error}.`);
}

type Accepting = { order: FoundOrder; target: RelayTarget; auth: Authorization; now: bigint; intent: { to: Address; calldata: Hex; gasLimit: bigint; feeCap: bigint } };

/** The relay's one transaction (with an Idempotency-Key, the stored 202 too); a stage refused rolls it back. */
async function accept(deps: RelayDeps, a: Accepting) {
  const { order, auth } = a;
  const id = newId('rly');
  const reserved = a.intent.gasLimit * a.intent.feeCap;
  const intent = intentRow({ chainId: order.chain_id, purpose: 'relay', refId: id, to: a.intent.to, calldata: a.intent.calldata, key: 'relayer', gasLimit: a.intent.gasLimit, maxFeeCap: a.intent.feeCap });
  const relay = {
    id, order_id: order.id, platform_id: order.platform_id, chain_id: order.chain_id, via: a.target.via, payer: auth.from,
    valid_after: auth.validAfter.toString(), valid_before: auth.validBefore.toString(), nonce: auth.nonce, authorization_sig: auth.signature,
    state: 'pending' as const, day: utcDay(a.now), reserved_wei: reserved.toString(),
  };
  const run = async (ex: Executor) => {
    const r = await relayRepo.accept(ex, { cap: deps.config.gaslessDailyCap, budget: deps.config.relayerDailyBudgetWei, intent, relay });
    if (!r.budgetOk) throw new BudgetRefused();
    if (!r.row) throw capReached(deps);
    const answer = serializeRelay({ ...r.row, sent_tx_hash: null });
    await recordResponseInTx(ex, 202, answer);
    return answer;
  };
  try {
    const answer = await deps.db.transaction().execute(run);
    deps.wake?.();
    deps.logger.info({ relay_id: id, order_id: order.id, via: a.target.via, reserved_wei: reserved.toString() }, 'gasless relay accepted');
    return answer;
  } catch (err) {
    if (err instanceof BudgetRefused) throw await budgetRefused(deps, order.chain_id, a.now, reserved);
    if (isUniqueViolation(err, 'relays_in_flight_idx')) throw relayInFlight(`A relay for order ${order.id} is already in flight.`);
    if (isUniqueViolation(err, 'relays_payer_in_flight_idx')) throw relayInFlight(`A relay from ${auth.from} is already in flight; wait for it to finish.`);
    throw err;
  }
}

class BudgetRefused extends Error {}

/** A chain call that failed for a reason other than a revert (node unreachable, timeout): 503, nothing written. */
async function onChain<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof AppError || !(err instanceof BaseError)) throw err;
    // The cause is not echoed: this endpoint is public and RPC errors carry provider details.
    throw new AppError('service_unavailable', 'The chain could not be reached to check this payment; nothing was sent, try again.');
  }
}

const capReached = (deps: RelayDeps) =>
  new AppError('gasless_cap_reached', `The platform's gasless relays for today (${deps.config.gaslessDailyCap}) are used up; pay with approve + pay or permit.`);

/** EOA (ECDSA) or contract wallet (ERC-1271, or ERC-6492 before deployment) against the token's own domain, the wallet's gas capped. */
async function verifySignature(deps: RelayDeps, order: OrderRow, auth: Authorization): Promise<void> {
  const rt = deps.chains.get(order.chain_id);
  const domain = await onChain(() => deps.tokenDomains.get(rt.publicClient, order.chain_id, getAddress(order.token_address)));
  const digest = hashTypedData({
    domain, types: receiveWithAuthorizationTypes, primaryType: 'ReceiveWithAuthorization',
    message: { from: auth.from, to: payOrderOf(order).domain.verifyingContract, value: order.amount, validAfter: auth.validAfter, validBefore: auth.validBefore, nonce: auth.nonce },
  });
  // ECDSA locally; ERC-1271/6492 through viem's universal validator; an unreachable node is 503, not a bad signature.
  const ok = await verifyHashSignature(() => rt.publicClient, auth.from, digest, auth.signature, deps.config.relayerGasLimit);
  if (!ok) throw new AppError('invalid_signature', `The signature does not verify as ${auth.from}'s ReceiveWithAuthorization for this order.`, 'signature');
}

function payCalldata(order: OrderRow, auth: Authorization): Hex {
  return encodeFunctionData({
    abi: paymentRouterAbi, functionName: 'payOrderWithAuthorization',
    args: [payOrderOf(order).message, order.signature as Hex, auth.from, auth.validAfter, auth.validBefore, auth.nonce, auth.signature],
  });
}
