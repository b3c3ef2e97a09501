import { encodeFunctionData, type Hex } from 'viem';
import { signPayOrder, payOrderJson, type PayOrderMessage } from '../../chain/eip712.js';
import { isUniqueViolation } from '../../db/errors.js';
import { AppError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { intentRow } from '../operator-txs/enqueue.js';
import { simulate } from '../operator-txs/simulate.js';
import { budgetRefused, checkBudget, relayFeeCap } from '../relay/budget.js';
import { utcDay } from '../relay/context.js';
import { relayRepo } from '../relay/repo.js';
import { payOrderOf } from '../relay/typed-data.js';
import type { X402Deps } from './context.js';
import { x402Repo, type X402PaymentRow } from './repo.js';
import { paymentRouterAbi } from '../../chain/artifacts/PaymentRouter.js';
import { X402Refusal, type Verified } from './verify.js';

/** The PayOrder the service signs for an x402 payment: the order's own terms and split, locked to the verified payer. */
export async function lockedPayOrder(deps: X402Deps, v: Verified): Promise<{ message: PayOrderMessage; signature: Hex }> {
  const message = { ...payOrderOf(v.found.order).message, payer: v.auth.from };
  const signature = await signPayOrder(deps.chains.requireSigner(), v.found.order.chain_id, v.router, message);
  return { message, signature };
}

/**
 * Enqueues payOrderWithTransfer for a verified payment (verify.ts) through the relay's machinery: the relayer's
 * daily budget and the platform's cap are reserved, the relay row, its outbox intent and the x402 payment written
 * in ONE transaction (a crash neither loses nor doubles it: the relayer's sender owns it from then on). Before
 * that, one simulation from the relayer on the pending block under RELAYER_GAS_LIMIT. Refusals send nothing.
 */
export async function enqueueSettlement(deps: X402Deps, v: Verified, now: bigint): Promise<X402PaymentRow> {
  const { order } = v.found;
  const rt = deps.chains.get(order.chain_id);
  const locked = await lockedPayOrder(deps, v);
  const calldata = encodeFunctionData({
    abi: paymentRouterAbi, functionName: 'payOrderWithTransfer',
    args: [locked.message, locked.signature, v.auth.from, v.auth.validAfter, v.auth.validBefore, v.auth.nonce, v.auth.signature],
  });
  if (deps.config.gaslessDailyCap <= 0) throw new X402Refusal('trisettle_cap_reached', 'The platform\'s relayed payments for today are used up.');
  await checkBudget(deps, order.chain_id, now).catch(toRefusal);
  const ceiling = deps.config.relayerGasLimit;
  const sim = await simulate(rt.publicClient, deps.chains.relayer!, v.router, calldata, { gas: ceiling, blockTag: 'pending' });
  if (!sim.ok) throw new X402Refusal('invalid_exact_evm_transaction_simulation_failed', `payOrderWithTransfer would revert: ${sim.error}.`);
  if (sim.gasLimit > ceiling) throw new X402Refusal('trisettle_gas_limit_exceeded', `This payment needs more gas than the relayer spends on one (${ceiling}).`);
  const feeCap = await relayFeeCap(rt.publicClient);
  return accept(deps, v, { calldata, gasLimit: sim.gasLimit, feeCap, now, locked });
}

type Accepting = { calldata: Hex; gasLimit: bigint; feeCap: bigint; now: bigint; locked: { message: PayOrderMessage; signature: Hex } };

async function accept(deps: X402Deps, v: Verified, a: Accepting): Promise<X402PaymentRow> {
  const { order, session } = v.found;
  const relayId = newId('rly');
  const reserved = a.gasLimit * a.feeCap;
  const intent = intentRow({ chainId: order.chain_id, purpose: 'relay', refId: relayId, to: v.router, calldata: a.calldata, key: 'relayer', gasLimit: a.gasLimit, maxFeeCap: a.feeCap });
  const window = { valid_after: v.auth.validAfter.toString(), valid_before: v.auth.validBefore.toString() };
  const relay = {
    id: relayId, order_id: order.id, platform_id: order.platform_id, chain_id: order.chain_id, via: 'x402' as const, payer: v.auth.from, ...window,
    nonce: v.auth.nonce, authorization_sig: v.auth.signature, state: 'pending' as const, day: utcDay(a.now), reserved_wei: reserved.toString(),
  };
  try {
    const row = await deps.db.transaction().execute(async (tx) => {
      const r = await relayRepo.accept(tx, { cap: deps.config.gaslessDailyCap, budget: deps.config.relayerDailyBudgetWei, intent, relay });
      if (!r.budgetOk) throw new BudgetRefused();
      if (!r.row) throw new X402Refusal('trisettle_cap_reached', 'The platform\'s relayed payments for today are used up.');
      return x402Repo.insert(tx, {
        id: newId('x402'), order_id: order.id, session_id: session.id, platform_id: order.platform_id, chain_id: order.chain_id, token_address: order.token_address,
        payer: v.auth.from, nonce: v.auth.nonce, value: order.amount.toString(), ...window, signature: v.auth.signature,
        pay_order: payOrderJson(order.chain_id, v.router, a.locked.message), pay_order_sig: a.locked.signature, status: 'pending', relay_id: relayId,
      });
    });
    deps.wake?.();
    deps.logger.info({ x402_payment_id: row.id, order_id: order.id, relay_id: relayId, reserved_wei: reserved.toString() }, 'x402 payment accepted');
    return row;
  } catch (err) {
    if (err instanceof BudgetRefused) throw toRefusalOf(await budgetRefused(deps, order.chain_id, a.now, reserved));
    if (isUniqueViolation(err, 'x402_payments_nonce_idx')) throw new X402Refusal('invalid_exact_evm_nonce_already_used', 'This authorization was already presented (nonce used).');
    if (isUniqueViolation(err, 'x402_payments_in_flight_idx') || isUniqueViolation(err, 'relays_in_flight_idx')) {
      throw new X402Refusal('trisettle_order_already_paying', `Order ${order.id} already has a payment in flight.`);
    }
    if (isUniqueViolation(err, 'relays_payer_in_flight_idx')) throw new X402Refusal('trisettle_payment_in_flight', `A relayed payment from ${v.auth.from} is already in flight.`);
    throw err;
  }
}

class BudgetRefused extends Error {}

const toRefusalOf = (err: unknown): unknown => (err instanceof AppError && err.status < 500 || err instanceof AppError && err.code === 'gasless_unavailable' ? new X402Refusal('trisettle_relayer_budget_spent', err.message) : err);
const toRefusal = (err: unknown): never => {
  throw toRefusalOf(err);
};
