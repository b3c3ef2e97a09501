import { isAddressEqual, type Address, type Hex } from 'viem';
import type { Tx } from '../../db/client.js';
import { recordAlert } from '../alerts/service.js';
import type { Clock } from '../../lib/clock.js';
import { subscriptionsRepo } from './repo.js';
import { tryTransition } from './transition.js';

export type PermissionRevokedEvent = { chainId: number; permissionHash: Hex; payer: Address; by: Address; txHash: Hex; blockTime: Date };
export type ChargedEvent = { chainId: number; permissionHash: Hex; orderId: Hex; periodIndex: bigint; amount: bigint; txHash: Hex; blockTime: Date };

/**
 * The manager's PermissionRevoked, applied at depth whenever the indexer reads it (also after the service was down
 * when it happened): the permission can never be charged again, so the subscription is canceled — payer_revoked
 * when the payer revoked it, else (the operator's revokeAsOperator) the reason the service gave when it asked.
 * A charge queued before is refused by the manager and ends on the canceled subscription without dunning.
 */
export const applyPermissionRevoked = (clock: Clock) => async (tx: Tx, e: PermissionRevokedEvent): Promise<void> => {
  const s = await subscriptionsRepo.lockByPermissionHash(tx, e.permissionHash);
  if (!s) {
    await recordAlert(tx, e.chainId, 'unknown_permission', { permission_hash: e.permissionHash, event: 'PermissionRevoked', tx_hash: e.txHash });
    return;
  }
  const byPayer = isAddressEqual(e.by, e.payer);
  await tryTransition(tx, s, 'cancel', { cancel_reason: byPayer ? 'payer_revoked' : 'canceled_by_platform', canceled_at: e.blockTime, next_charge_at: null }, clock.now());
};

/**
 * The manager's Charged: the order's OrderPaid (same transaction, applied by orders) confirms the charge and moves the
 * schedule (follow-orders.ts). Here only a charge under a permission the service does not know is worth an alert.
 */
export const applyCharged = async (tx: Tx, e: ChargedEvent): Promise<void> => {
  const s = await subscriptionsRepo.lockByPermissionHash(tx, e.permissionHash);
  if (!s) await recordAlert(tx, e.chainId, 'unknown_permission', { permission_hash: e.permissionHash, event: 'Charged', order_onchain_id: e.orderId, tx_hash: e.txHash });
};
