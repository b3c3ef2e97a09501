import { decodeFunctionData, encodeFunctionData, getAddress, type Address, type Hex } from 'viem';
import type { ArrivalProof } from '../../chain/arrival-proof.js';
import { paymentRouterAbi } from '../../chain/artifacts/PaymentRouter.js';
import { payOrderFromJson, type PayOrderJson } from '../../chain/eip712.js';
import type { Executor, Tx } from '../../db/client.js';
import { recordAlert } from '../alerts/service.js';
import type { AuthorizedTransferEvent, UnmatchedTransferSeen } from '../indexer/handlers.js';
import { linkUnmatchedTransfer, resolveUnmatchedTransfer } from '../indexer/unmatched.js';
import { enqueueOperatorTx } from '../operator-txs/enqueue.js';
import { liftFrontRunBan } from '../relay/lift-ban.js';
import type { OperatorTxOutcome } from '../operator-txs/types.js';
import type { X402Deps } from './context.js';
import { x402Repo, type X402PaymentRow } from './repo.js';

type Deps = Pick<X402Deps, 'logger'>;

/** The transfer was claimed by another payment first (linkUnmatchedTransfer): thrown to roll the claim's transaction back. */
export class LostClaim extends Error {
  constructor(readonly transferId: string) {
    super(`unmatched transfer ${transferId} is claimed already`);
  }
}

/** The order's state (only 'pending_payment' can still be paid by attribution). */
const orderState = async (tx: Executor, orderId: string) =>
  (await tx.selectFrom('orders').select('state').where('id', '=', orderId).executeTakeFirstOrThrow()).state;

const routerOf = (p: X402PaymentRow): Address => getAddress((p.pay_order as PayOrderJson).domain.verifyingContract);

/** attributeTransfer with the payer-locked PayOrder the service signed for this payment (the relay's own) and the arrival's proof. */
const attributeCall = (p: X402PaymentRow, proof: ArrivalProof): Hex => encodeFunctionData({
  abi: paymentRouterAbi, functionName: 'attributeTransfer',
  args: [payOrderFromJson(p.pay_order as PayOrderJson), p.pay_order_sig as Hex, getAddress(p.payer), p.nonce as Hex, proof],
});
const returnCall = (p: X402PaymentRow, proof: ArrivalProof): Hex =>
  encodeFunctionData({ abi: paymentRouterAbi, functionName: 'returnTransfer', args: [getAddress(p.token_address), getAddress(p.payer), p.nonce as Hex, proof] });

const enqueueReturn = (tx: Executor, p: X402PaymentRow, proof: ArrivalProof) =>
  enqueueOperatorTx(tx, { chainId: p.chain_id, purpose: 'x402_return', refId: p.id, to: routerOf(p), calldata: returnCall(p, proof) });

/** The proof an attributeTransfer intent carried (its calldata): a return after it failed carries the same. */
async function proofOfIntent(tx: Executor, operatorTxId: string): Promise<ArrivalProof> {
  const { args } = decodeFunctionData({ abi: paymentRouterAbi, data: await x402Repo.intentCalldata(tx, operatorTxId) });
  return (args as readonly unknown[])[4] as ArrivalProof;
}

/**
 * Indexer, in the range's transaction: only a transfer from the payer of an open verified authorization, for its exact
 * value, mined inside its window, can be one of ours front-run; only for such a transfer is the receipt read. Dust
 * from anyone else costs a database read, no RPC call.
 */
export const frontRunCandidate = (tx: Tx, t: UnmatchedTransferSeen): Promise<boolean> =>
  x402Repo.openForTransfer(tx, { chainId: t.chainId, token: t.token, payer: getAddress(t.from), value: t.value, blockSeconds: BigInt(Math.floor(t.blockTime.getTime() / 1000)) });

/**
 * Indexer (at depth, once per transfer) or adoption: `e.from`'s authorization `e.nonce` moved `e.value` into the
 * router in a transaction without the router's pull (someone submitted it to the token directly), proven by
 * `e.proof`. When it is an authorization
 * this service verified (pending, or failed on the used nonce) for exactly the payment's value, the payment becomes
 * `front_run` and, in the same transaction, the operator's call is queued: attributeTransfer while its order is
 * still payable, else returnTransfer (the funds back to the payer). The router's x402Consumed makes either one-shot.
 */
export function frontRunHandler(deps: Deps) {
  return async (tx: Tx, e: AuthorizedTransferEvent): Promise<boolean> => {
    const found = await x402Repo.byNonce(tx, e.chainId, getAddress(e.from), e.nonce);
    if (!found || BigInt(found.value) !== e.value || found.token_address.toLowerCase() !== e.token.toLowerCase()) return false;
    const p = await x402Repo.transition(tx, found.id, 'front_run', { tx_hash: e.txHash });
    if (!p) return false;
    // One transfer, one attribution: a transfer another payment claimed first is not claimed twice.
    if (!(await linkUnmatchedTransfer(tx, e.transferId, p.id))) throw new LostClaim(e.transferId);
    await liftFrontRunBan(tx, p.payer, p.order_id); // its relay's failure on the used nonce was not the payer's doing
    const payable = (await orderState(tx, p.order_id)) === 'pending_payment';
    if (payable) await enqueueOperatorTx(tx, { chainId: p.chain_id, purpose: 'x402_attribute', refId: p.id, to: routerOf(p), calldata: attributeCall(p, e.proof) });
    else await enqueueReturn(tx, p, e.proof);
    deps.logger.warn({ x402_payment_id: p.id, order_id: p.order_id, payer: p.payer, tx_hash: e.txHash, action: payable ? 'attribute' : 'return' }, 'x402 authorization front-run (submitted to the token directly)');
    return true;
  };
}

/**
 * Outcomes of the two calls. attributeTransfer mined: `attributed` (its OrderPaid confirms the order through the
 * indexer, as any payment). Not mined (the order was paid meanwhile, expired or cancelled): the funds go back with
 * returnTransfer. returnTransfer mined: `returned` and an `x402_returned` alert; either mined call resolves the unmatched transfer
 * (resolution, its hash) in the same transaction; not mined: an `x402_return_failed`
 * alert (the funds stay unattributed in the router for the operator; the row stays front_run).
 */
export function frontRunOutcomeHandlers(deps: Deps) {
  return {
    x402_attribute: async (tx: Tx, o: OperatorTxOutcome) => {
      const p = await x402Repo.byId(tx, o.refId);
      if (!p) return;
      if (o.outcome === 'success') {
        if (await x402Repo.transition(tx, p.id, 'attribute', { tx_hash: o.txHash })) await resolveUnmatchedTransfer(tx, p.id, 'attributed', o.txHash, new Date());
        return;
      }
      deps.logger.warn({ x402_payment_id: p.id, error: o.error }, 'attributeTransfer not mined; returning the funds to the payer');
      await enqueueReturn(tx, p, await proofOfIntent(tx, o.id));
    },
    x402_return: async (tx: Tx, o: OperatorTxOutcome) => {
      const p = await x402Repo.byId(tx, o.refId);
      if (!p) return;
      const detail = { x402_payment_id: p.id, order_id: p.order_id, payer: p.payer, value: p.value, nonce: p.nonce, tx_hash: o.txHash, error: o.error };
      if (o.outcome === 'success') {
        if (await x402Repo.transition(tx, p.id, 'return', { tx_hash: o.txHash })) await resolveUnmatchedTransfer(tx, p.id, 'returned', o.txHash, new Date());
        await recordAlert(tx, p.chain_id, 'x402_returned', detail);
        return;
      }
      await recordAlert(tx, p.chain_id, 'x402_return_failed', detail);
      deps.logger.error(detail, 'returnTransfer not mined: front-run x402 funds stay unattributed in the router');
    },
  };
}
