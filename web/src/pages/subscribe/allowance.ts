import { erc20Abi, type Address, type Hex, type PublicClient } from 'viem';
import type { Config } from 'wagmi';
import { writeContract } from 'wagmi/actions';

/** At most this many charges are allowed at a time (the service's ALLOWANCE_PERIODS: a year of monthly charges). */
export const TOP_UP_PERIODS = 12n;
/** Below this many charges left in the allowance, the manage page asks the payer to allow more. */
export const LOW_PERIODS = 3n;

export type AllowancePlan = {
  /** Whole charges the current allowance still pays for. */
  covers: bigint;
  /** Charges the permission may still take (max_periods − charged), or null when open-ended. */
  left: bigint | null;
  /** The allowance an approve should set (amount × min(12, left)), or null when no top-up makes sense. */
  target: bigint | null;
  /** Running low: fewer than LOW_PERIODS charges covered while more are due. */
  low: boolean;
};

/**
 * What the manager may still pull against what the permission still allows. The permission bounds each charge; the
 * token allowance bounds the total, and once it is used up charges fail for allowance (dunning, then canceled). So an
 * open-ended subscription needs the payer to allow more from time to time: never more than 12 charges at once.
 */
export function allowancePlan(amount: bigint, allowance: bigint, maxPeriods: number | null, charged: number): AllowancePlan {
  const covers = amount > 0n ? allowance / amount : 0n;
  const left = maxPeriods === null ? null : BigInt(Math.max(0, maxPeriods - charged));
  const want = left === null ? TOP_UP_PERIODS : left < TOP_UP_PERIODS ? left : TOP_UP_PERIODS;
  const target = covers < want ? amount * want : null;
  return { covers, left, target, low: target !== null && covers < (want < LOW_PERIODS ? want : LOW_PERIODS) };
}

/** The token's allowance from the payer to the manager, read on the subscription's chain. */
export const readAllowance = (client: PublicClient, token: Address, owner: Address, spender: Address) =>
  client.readContract({ address: token, abi: erc20Abi, functionName: 'allowance', args: [owner, spender] });

/** approve(manager, target) from the payer's wallet, simulated first (a refusal is a sentence), then waited for. */
export async function approveMore(config: Config, client: PublicClient, chainId: number, token: Address, spender: Address, account: Address, target: bigint): Promise<Hex> {
  await client.simulateContract({ account, address: token, abi: erc20Abi, functionName: 'approve', args: [spender, target] });
  const hash = await writeContract(config, { address: token, abi: erc20Abi, functionName: 'approve', args: [spender, target], chainId, account });
  const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 1_000 });
  if (receipt.status !== 'success') throw new Error('The approval transaction failed on-chain.');
  return hash;
}
