import type { Hex } from 'viem';
import type { X402Deps } from './context.js';
import { x402Repo, type X402PaymentRow } from './repo.js';

export type SettleResult =
  | { outcome: 'mined'; txHash: Hex; payment: X402PaymentRow }
  | { outcome: 'failed'; reason: string; message: string; txHash: Hex | null; payment: X402PaymentRow }
  | { outcome: 'pending'; txHash: Hex | null; payment: X402PaymentRow };

/**
 * Waits (at most `settleWaitMs`, reading every `pollMs`) for the relayer's transaction of an x402 payment to be
 * mined, and reads its receipt: a success is `mined` (the order confirms at depth through the indexer, as every
 * payment does), a revert or a refusal by the sender is `failed`, still unmined at the end of the wait `pending`.
 * A front-run payment answers at once: `attributed` is mined (the attribution's hash), `front_run` pending, `returned` failed.
 */
export async function waitForSettlement(deps: X402Deps, paymentId: string): Promise<SettleResult> {
  const until = Date.now() + deps.settleWaitMs;
  for (;;) {
    const p = await x402Repo.progress(deps.db, paymentId);
    if (!p) throw new Error(`x402 payment ${paymentId} vanished`);
    const { tx_state, sent_tx_hash, tx_error, ...payment } = p;
    const hash = (payment.tx_hash ?? sent_tx_hash) as Hex | null;
    if (payment.status === 'failed' || tx_state === 'rejected') {
      return { outcome: 'failed', reason: 'invalid_exact_evm_transaction_failed', message: payment.error ?? tx_error ?? 'The relayer could not send it.', txHash: hash, payment };
    }
    if (payment.status === 'settled' || payment.status === 'attributed') return { outcome: 'mined', txHash: hash!, payment };
    // Front-run (front-run.ts): completed by the operator's attributeTransfer, or its value returned.
    if (payment.status === 'front_run') return { outcome: 'pending', txHash: hash, payment };
    if (payment.status === 'returned') return { outcome: 'failed', reason: 'invalid_exact_evm_transaction_failed', message: 'The authorization was submitted to the token directly and its value returned to the payer.', txHash: hash, payment };
    if (hash !== null && (tx_state === 'mined' || tx_state === 'done')) {
      const receipt = await deps.chains.get(payment.chain_id).publicClient.getTransactionReceipt({ hash }).catch(() => null);
      if (receipt?.status === 'success') return { outcome: 'mined', txHash: hash, payment };
      if (receipt?.status === 'reverted') return { outcome: 'failed', reason: 'invalid_exact_evm_transaction_failed', message: 'payOrderWithTransfer reverted.', txHash: hash, payment };
    }
    if (Date.now() >= until) return { outcome: 'pending', txHash: hash, payment };
    await new Promise((r) => setTimeout(r, deps.pollMs));
  }
}
