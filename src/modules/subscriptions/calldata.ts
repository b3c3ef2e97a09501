import { encodeFunctionData, parseSignature, type Hex } from 'viem';
import type { OperatorTxIntent } from '../operator-txs/types.js';
import { subscriptionManagerAbi } from '../../chain/subscription-manager-abi.js';
import { permissionFromJson, type PermissionJson } from './permission.js';
import type { SubscriptionRow } from './repo.js';

type Authorized = SubscriptionRow & { permission: PermissionJson; payer_signature: string; permission_hash: string };

export const isAuthorized = (s: SubscriptionRow): s is Authorized => s.permission !== null && s.payer_signature !== null && s.permission_hash !== null;

/**
 * charge(p, signature, orderId, amount), or chargeWithPermit(…) while the row still holds the payer's EIP-2612 permit
 * to the manager, unexpired (the manager tries the permit and goes on without it if it was used already). Only the
 * first charge finds it: start-charge.ts drops it with that charge.
 */
export function chargeIntent(s: Authorized, orderId: string, onchainOrderId: Hex, chainNowSec: number): OperatorTxIntent {
  const p = permissionFromJson(s.permission);
  const sig = s.payer_signature as Hex;
  const permit = s.permit as { value: string; deadline: string; signature: Hex } | null;
  const calldata = permit && Number(permit.deadline) > chainNowSec
    ? (() => {
        const { v, r, s: ss, yParity } = parseSignature(permit.signature);
        return encodeFunctionData({
          abi: subscriptionManagerAbi, functionName: 'chargeWithPermit',
          args: [p, sig, onchainOrderId, p.amount, BigInt(permit.value), BigInt(permit.deadline), Number(v ?? BigInt(27 + yParity)), r, ss],
        });
      })()
    : encodeFunctionData({ abi: subscriptionManagerAbi, functionName: 'charge', args: [p, sig, onchainOrderId, p.amount] });
  return { chainId: s.chain_id, purpose: 'subscription_charge', refId: orderId, to: s.manager_address as Hex, calldata };
}

/** revokeAsOperator(hash): the permission can never be charged again (the platform's cancel, or the end of dunning). */
export const revokeIntent = (s: Authorized): OperatorTxIntent => ({
  chainId: s.chain_id, purpose: 'subscription_revoke', refId: s.id, to: s.manager_address as Hex,
  calldata: encodeFunctionData({ abi: subscriptionManagerAbi, functionName: 'revokeAsOperator', args: [s.permission_hash as Hex] }),
});
