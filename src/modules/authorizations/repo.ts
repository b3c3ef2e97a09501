import { sql } from 'kysely';
import type { Executor } from '../../db/client.js';
import type { VoidRequestReason } from '../../db/schema.js';

/**
 * SQL of charge-later requests. This module owns the request columns of orders (migration 024:
 * capture_requested_at/_amount, void_requested_at/_reason); the state and the amounts move only through the
 * orders module, from the chain's events.
 */
export const authorizationsRepo = {
  /**
   * The PayOrder the chain authorized when an x402 payment paid the order: the payer-locked one the service signed for
   * that payer (x402/settle.ts), not the order's open one, so its digest is the one the router stored.
   */
  x402PayOrder: async (tx: Executor, orderId: string): Promise<unknown> =>
    (await sql<{ pay_order: unknown }>`select pay_order from x402_payments where order_id = ${orderId} and status in ('settled', 'attributed') limit 1`.execute(tx)).rows[0]?.pay_order ?? null,
  /** The caller's order, locked: requests of one order are serialised (and another platform's is not found). */
  lockOfPlatform: (tx: Executor, platformId: string, id: string) =>
    tx.selectFrom('orders').selectAll().where('platform_id', '=', platformId).where('id', '=', id).forUpdate().executeTakeFirst(),

  markCaptureRequested: (tx: Executor, id: string, amount: bigint, now: Date) =>
    tx.updateTable('orders').set({ capture_requested_at: now, capture_requested_amount: amount, capture_attempts: sql`capture_attempts + 1`, updated_at: now })
      .where('id', '=', id).where('state', '=', 'authorized').where('capture_requested_at', 'is', null).where('void_requested_at', 'is', null)
      .returningAll().executeTakeFirstOrThrow(),

  /** A capture that failed (reverted, or refused by simulation): the order may be captured again while its window lasts. */
  clearCaptureRequest: (tx: Executor, id: string, now: Date) =>
    tx.updateTable('orders').set({ capture_requested_at: null, capture_requested_amount: null, updated_at: now })
      .where('id', '=', id).where('state', '=', 'authorized').execute(),

  markVoidRequested: (tx: Executor, id: string, reason: VoidRequestReason, now: Date) =>
    tx.updateTable('orders').set({ void_requested_at: now, void_requested_reason: reason, updated_at: now })
      .where('id', '=', id).where('state', '=', 'authorized').where('void_requested_at', 'is', null)
      .returningAll().executeTakeFirstOrThrow(),

  /**
   * Authorized orders of the chain whose capture window ended at or before `indexedUntil` (the indexed chain time)
   * with no capture recorded and no void asked yet, locked so concurrent sweepers take disjoint rows.
   */
  lockDueForVoid: (tx: Executor, chainId: number, indexedUntil: Date, limit: number) =>
    tx.selectFrom('orders').select(['id', 'chain_id', 'pay_to', 'onchain_id']).where('state', '=', 'authorized').where('chain_id', '=', chainId)
      .where('capture_before', '<=', indexedUntil).where('void_requested_at', 'is', null).where('amount_captured', '=', 0n)
      .orderBy('capture_before').limit(limit).forUpdate().skipLocked().execute(),
};
