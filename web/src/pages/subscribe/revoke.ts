import type { Address, Hex, PublicClient } from 'viem';
import type { Config } from 'wagmi';
import { writeContract } from 'wagmi/actions';
import type { SubscriptionAuthorization } from '../../lib/types';
import { subscriptionManagerAbi } from '../../wallet/subscription-abi';

type PermissionJson = NonNullable<SubscriptionAuthorization['authorized']>['permission'];

/** The stored permission as the manager's tuple (uint160/uint256 as bigint; uint16/32/48 as numbers, as viem encodes them). */
export const permissionTuple = (p: PermissionJson) => ({
  payer: p.payer as Address, token: p.token as Address, merchant: p.merchant as Address, platform: p.platform as Address,
  amount: BigInt(p.amount), period: p.period, start: p.start, end: p.end,
  serviceFeeBps: p.serviceFeeBps, platformFeeBps: p.platformFeeBps, reserveBps: p.reserveBps, salt: BigInt(p.salt),
});

/**
 * revoke(p) from the payer's own wallet, straight to the SubscriptionManager: no service is involved, so a payer can
 * stop a subscription even when Trisettle is down. Simulated first so a refusal (not the payer, already revoked) is a
 * sentence, then waited for; the service's indexer turns it into `canceled` (payer_revoked).
 */
export async function revokePermission(config: Config, client: PublicClient, chainId: number, manager: Address, account: Address, p: PermissionJson): Promise<Hex> {
  const args = [permissionTuple(p)] as const;
  await client.simulateContract({ account, address: manager, abi: subscriptionManagerAbi, functionName: 'revoke', args });
  const hash = await writeContract(config, { address: manager, abi: subscriptionManagerAbi, functionName: 'revoke', args, chainId, account });
  const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 1_000 });
  if (receipt.status !== 'success') throw new Error('The revocation transaction failed on-chain.');
  return hash;
}
