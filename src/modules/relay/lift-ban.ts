import { sql } from 'kysely';
import type { Executor } from '../../db/client.js';
import { AUTHORIZATION_USED_REASON } from './payer-fault.js';

/**
 * An x402 relay of `payer` for `orderId` failed on its used nonce and the indexer then proved a front-run (a third
 * party used the authorization to pay the router: x402/front-run.ts): the ban that failure set was not the payer's
 * doing and is lifted, in the claim's transaction. Only that ban: the order's ban with the used-nonce reason, and the
 * payer's while its latest ban is that reason (a later ban for another cause stays).
 */
export async function liftFrontRunBan(tx: Executor, payer: string, orderId: string): Promise<void> {
  const lifted = await sql`delete from relay_order_bans where order_id = ${orderId} and payer = ${payer} and reason = ${AUTHORIZATION_USED_REASON} returning 1`.execute(tx);
  if (lifted.rows.length === 0) return;
  await sql`update relay_payers set banned_until = null, ban_reason = null, updated_at = now() where payer = ${payer} and ban_reason = ${AUTHORIZATION_USED_REASON}`.execute(tx);
}
