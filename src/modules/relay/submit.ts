import { BaseError, encodeFunctionData, getAddress, hashTypedData, type Address, type Hex } from 'viem';
import { paymentRouterAbi } from '../../chain/artifacts/PaymentRouter.js';
import type { Executor } from '../../db/client.js';
import { isUniqueViolation } from '../../db/errors.js';
import { AppError, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { recordResponseInTx, recordsResponse } from '../idempotency/context.js';
import type { OrderRow } from '../orders/repo.js';
import { verifyHashSignature } from '../invitations/verify.js';
import { intentRow } from '../operator-txs/enqueue.js';
import { simulate } from '../operator-txs/simulate.js';
import { checkAuthorization } from './check-authorization.js';
import { latestBlock } from './latest-block.js';
import { utcDay, type RelayDeps } from './context.js';
import { relayRepo } from './repo.js';
import { serializeRelay } from './serialize.js';
import { payOrderOf, receiveWithAuthorizationTypes, type Authorization } from './typed-data.js';

export type RelayTarget = { orderId: string; platformId: string | null; via: 'checkout' | 'api' };
export type RelayBody = { from: Address; valid_after: string; valid_before: string; nonce: string; signature: string };

/**
 * Accepts a buyer's signed ReceiveWithAuthorization for an order and enqueues payOrderWithAuthorization for
 * the relayer. Everything is checked first (switch, order, authorization, payer lock, chain time, cap, then
 * one simulation from the relayer, which checks the signature in the token; a refused simulation is named
 * invalid_signature when the signature does not verify off chain either); a refusal throws the AppError naming
 * it with nothing written or sent. Then, in one statement: a slot of the platform's daily cap, the relay row
 * and the outbox intent, with the simulation's gas limit (the sender does not simulate it again).
 */
export async function submitRelay(deps: RelayDeps, target: RelayTarget, body: RelayBody) {
  const order = await relayRepo.findOrder(deps.db, target.orderId);
  if (!order || (target.platformId !== null && order.platform_id !== target.platformId)) throw notFound('order');
  if (!deps.config.gaslessEnabled) throw new AppError('gasless_disabled');
  const relayer = deps.chains.relayer;
  if (!relayer) throw new AppError('service_unavailable', 'Gasless payment is not configured (RELAYER_PRIVATE_KEY).');
  const auth: Authorization = {
    from: getAddress(body.from), validAfter: BigInt(body.valid_after), validBefore: BigInt(body.valid_before), nonce: body.nonce as Hex, signature: body.signature as Hex,
  };
  const rt = deps.chains.get(order.chain_id);
  const block = await onChain(() => latestBlock(rt.publicClient));
  rt.clock.observe(block.timestamp);
  checkAuthorization(order, auth, block.timestamp);
  if (order.relay_in_flight) throw inFlight(order.id);
  if (deps.config.gaslessDailyCap <= 0) throw capReached(deps);
  const router = payOrderOf(order).domain.verifyingContract;
  const calldata = payCalldata(order, auth);
  // One simulation from the relayer (eth_simulateV1, or eth_estimateGas on a node without it): it proves the call
  // succeeds, and with it that the token accepted the signature (receiveWithAuthorization checks it, ECDSA or
  // ERC-1271, over this very digest), and gives the gas the sender signs with. Only a refusal asks why: a
  // signature that does not verify is named as such.
  const sim = await onChain(() => simulate(rt.publicClient, relayer, router, calldata));
  if (!sim.ok) {
    await verifySignature(deps, order, auth);
    throw new AppError('simulation_failed', `payOrderWithAuthorization would revert: ${sim.error}.`);
  }
  const id = newId('rly');
  const intent = intentRow({ chainId: order.chain_id, purpose: 'relay', refId: id, to: router, calldata, key: 'relayer', gasLimit: sim.gasLimit });
  // The cap's slot, the intent and the relay are one statement; with an Idempotency-Key the 202 joins them in a transaction.
  const accept = async (ex: Executor) => {
    const row = await relayRepo.accept(ex, {
      cap: deps.config.gaslessDailyCap,
      intent,
      relay: {
        id, order_id: order.id, platform_id: order.platform_id, chain_id: order.chain_id, via: target.via, payer: auth.from,
        valid_after: auth.validAfter.toString(), valid_before: auth.validBefore.toString(), nonce: auth.nonce, authorization_sig: auth.signature,
        state: 'pending', day: utcDay(block.timestamp),
      },
    });
    if (!row) throw capReached(deps);
    const answer = serializeRelay({ ...row, sent_tx_hash: null });
    await recordResponseInTx(ex, 202, answer);
    return answer;
  };
  try {
    const relay = recordsResponse() ? await deps.db.transaction().execute(accept) : await accept(deps.db);
    deps.wake?.();
    deps.logger.info({ relay_id: id, order_id: order.id, via: target.via }, 'gasless relay accepted');
    return relay;
  } catch (err) {
    if (isUniqueViolation(err, 'relays_in_flight_idx')) throw inFlight(order.id);
    throw err;
  }
}

const inFlight = (orderId: string) => new AppError('relay_in_flight', `A relay for order ${orderId} is already in flight.`);

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

/** EOA (ECDSA) or contract wallet (ERC-1271, or ERC-6492 before deployment) against the token's own domain. */
async function verifySignature(deps: RelayDeps, order: OrderRow, auth: Authorization): Promise<void> {
  const rt = deps.chains.get(order.chain_id);
  const domain = await onChain(() => deps.tokenDomains.get(rt.publicClient, order.chain_id, getAddress(order.token_address)));
  const digest = hashTypedData({
    domain, types: receiveWithAuthorizationTypes, primaryType: 'ReceiveWithAuthorization',
    message: { from: auth.from, to: payOrderOf(order).domain.verifyingContract, value: order.amount, validAfter: auth.validAfter, validBefore: auth.validBefore, nonce: auth.nonce },
  });
  // ECDSA locally; ERC-1271/6492 through viem's universal validator; an unreachable node is 503, not a bad signature.
  const ok = await verifyHashSignature(() => rt.publicClient, auth.from, digest, auth.signature);
  if (!ok) throw new AppError('invalid_signature', `The signature does not verify as ${auth.from}'s ReceiveWithAuthorization for this order.`, 'signature');
}

function payCalldata(order: OrderRow, auth: Authorization): Hex {
  return encodeFunctionData({
    abi: paymentRouterAbi, functionName: 'payOrderWithAuthorization',
    args: [payOrderOf(order).message, order.signature as Hex, auth.from, auth.validAfter, auth.validBefore, auth.nonce, auth.signature],
  });
}
