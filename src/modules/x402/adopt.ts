import { getAddress, type Hex } from 'viem';
import { payOrderJson } from '../../chain/eip712.js';
import { findArrival } from '../../chain/find-arrival.js';
import { isUniqueViolation } from '../../db/errors.js';
import { newId } from '../../lib/ids.js';
import type { X402Deps } from './context.js';
import { frontRunHandler, LostClaim } from './front-run.js';
import { proveArrival } from './prove.js';
import { x402Repo } from './repo.js';
import { lockedPayOrder } from './settle.js';
import type { Verified } from './verify.js';

/** Receipts read at most for one adoption (the payer's newest unclaimed transfers of the amount). */
const ADOPT_RECEIPTS = 5;

/**
 * A verified authorization (signature, terms, window, order) that the token already reports used when it is presented
 * for settlement: someone submitted it to the token first (between the facilitator's verify and settle, say). It is
 * recorded as this service's x402 payment (`failed`, no relay) under a share lock of the chain's cursor, so the
 * indexer's range transaction either sees the row (and claims the transfer itself, front-run.ts) or has committed
 * the unmatched transfer before this looks for it; a transfer already indexed is claimed here, from its receipt, only
 * when that transfer IS the authorization's arrival (chain/find-arrival.ts: its AuthorizationUsed directly followed by
 * this Transfer to the router, of exactly the amount). A nonce used for anything else (a charge-later pull, a cancel, a
 * transfer elsewhere, another transfer of the same transaction) claims nothing; a transfer already claimed stays its
 * claimant's (linkUnmatchedTransfer's compare-and-set; the lost claim rolls back).
 */
export async function adoptUsedAuthorization(deps: X402Deps, v: Verified): Promise<void> {
  const { order, session } = v.found;
  const rt = deps.chains.get(order.chain_id);
  const locked = await lockedPayOrder(deps, v);
  const seen = await deps.db.transaction().execute(async (tx) => {
    await tx.selectFrom('chain_cursors').select('chain_id').where('chain_id', '=', order.chain_id).forShare().execute();
    try {
      await x402Repo.insert(tx, {
        id: newId('x402'), order_id: order.id, session_id: session.id, platform_id: order.platform_id, chain_id: order.chain_id, token_address: order.token_address,
        payer: v.auth.from, nonce: v.auth.nonce, value: order.amount.toString(), valid_after: v.auth.validAfter.toString(), valid_before: v.auth.validBefore.toString(),
        signature: v.auth.signature, pay_order: payOrderJson(order.chain_id, v.router, locked.message), pay_order_sig: locked.signature, status: 'failed',
        error: 'authorization used at the token before it was relayed',
      });
    } catch (err) {
      if (isUniqueViolation(err, 'x402_payments_nonce_idx')) return [];
      throw err;
    }
    // Only the payer can send from its address, so this is its own few transfers of exactly this value.
    return tx.selectFrom('unmatched_transfers').select(['id', 'tx_hash', 'block_time', 'log_index']).where('chain_id', '=', order.chain_id)
      .where('from_address', '=', v.auth.from).where('value', '=', order.amount.toString() as never)
      .where('x402_payment_id', 'is', null).where('resolved_at', 'is', null).orderBy('block_number', 'desc').limit(ADOPT_RECEIPTS).execute();
  });
  const token = getAddress(order.token_address);
  for (const t of seen) {
    const receipt = await rt.publicClient.getTransactionReceipt({ hash: t.tx_hash as Hex });
    const arrival = findArrival(receipt.logs, { token, to: v.router, from: v.auth.from, nonce: v.auth.nonce, value: order.amount });
    if (!arrival || arrival.logIndex !== t.log_index) continue;
    const proof = await proveArrival(deps, rt, { txHash: t.tx_hash as Hex, from: v.auth.from, nonce: v.auth.nonce });
    if (!proof) return;
    const e = { chainId: order.chain_id, token, from: v.auth.from, nonce: v.auth.nonce, value: order.amount, txHash: t.tx_hash as Hex, blockTime: t.block_time, transferId: t.id, proof };
    try {
      await deps.db.transaction().execute((tx) => frontRunHandler(deps)(tx, e));
    } catch (err) {
      if (!(err instanceof LostClaim)) throw err;
    }
    return;
  }
}
