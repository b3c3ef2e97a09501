import type { Address, Hex, PublicClient } from 'viem';
import type { Config } from 'wagmi';
import { signTypedData, writeContract } from 'wagmi/actions';
import { api } from '../../lib/api';
import type { Subscription, SubscriptionAuthorization } from '../../lib/types';
import { erc20Abi } from '../../wallet/abi';
import { SPEND_PERMISSION_TYPES } from '../../../../src/modules/subscriptions/permission.js';
import { sameAsToken } from '../checkout/flows/token-domain';

/** How the payer gives the manager its allowance: a permit signature (sent with the first charge) or an approve transaction. */
export type AllowanceMethod = 'permit' | 'approve';
export type SubscribeStep = 'approving' | 'approve_pending' | 'signing_permit' | 'signing' | 'activating';

const PERMIT_TYPES = {
  Permit: [{ name: 'owner', type: 'address' }, { name: 'spender', type: 'address' }, { name: 'value', type: 'uint256' }, { name: 'nonce', type: 'uint256' }, { name: 'deadline', type: 'uint256' }],
} as const;

type Ctx = { config: Config; client: PublicClient; account: Address; chainId: number; auth: SubscriptionAuthorization; token: string; onStep: (s: SubscribeStep) => void };
type Permit = { value: string; deadline: string; signature: Hex };

const big = (v: unknown) => BigInt(String(v));

/** Whether the allowance already covers what the manager needs (a second visit after an approve). */
export async function allowanceCovered(client: PublicClient, auth: SubscriptionAuthorization, owner: Address): Promise<boolean> {
  const have = await client.readContract({ address: auth.token.address as Address, abi: erc20Abi, functionName: 'allowance', args: [owner, auth.allowance.spender as Address] });
  return have >= BigInt(auth.allowance.amount);
}

/** EIP-2612 permit to the manager: the service's typed data with owner and the token's nonce filled, its domain checked against the token's. */
async function signPermit(ctx: Ctx): Promise<Permit> {
  const t = ctx.auth.allowance.permit!.typed_data;
  const domain = t.domain as { name: string; version: string; chainId: number; verifyingContract: Address };
  if (!(await sameAsToken(ctx.client, domain))) throw new Error('The token\'s permit domain does not match; use the approve option instead.');
  const nonce = await ctx.client.readContract({ address: domain.verifyingContract, abi: erc20Abi, functionName: 'nonces', args: [ctx.account] });
  const m = t.message as Record<string, unknown>;
  const message = { owner: ctx.account, spender: m.spender as Address, value: big(m.value), nonce, deadline: big(m.deadline) };
  ctx.onStep('signing_permit');
  const signature = await signTypedData(ctx.config, { account: ctx.account, domain, types: PERMIT_TYPES, primaryType: 'Permit', message });
  return { value: message.value.toString(), deadline: message.deadline.toString(), signature };
}

/** The approve transaction the service describes (to the manager, the amount it names), waited for. */
async function approve(ctx: Ctx): Promise<void> {
  ctx.onStep('approving');
  const a = ctx.auth.allowance;
  const hash = await writeContract(ctx.config, { address: ctx.auth.token.address as Address, abi: erc20Abi, functionName: 'approve', args: [a.spender as Address, BigInt(a.amount)], chainId: ctx.chainId, account: ctx.account });
  ctx.onStep('approve_pending');
  const receipt = await ctx.client.waitForTransactionReceipt({ hash, pollingInterval: 1_000 });
  if (receipt.status !== 'success') throw new Error('The approval transaction failed on-chain.');
}

/** The SpendPermission typed data with this wallet as payer, uints as bigint for the wallet. */
function permissionTypedData(auth: SubscriptionAuthorization, payer: Address) {
  const t = auth.typed_data;
  const m = t.message as Record<string, unknown>;
  const message = {
    payer, token: m.token as Address, merchant: m.merchant as Address, platform: m.platform as Address, amount: big(m.amount), period: Number(m.period), start: Number(m.start),
    end: Number(m.end), serviceFeeBps: Number(m.serviceFeeBps), platformFeeBps: Number(m.platformFeeBps), reserveBps: Number(m.reserveBps), salt: big(m.salt),
  };
  const domain = t.domain as { name: string; version: string; chainId: number; verifyingContract: Address };
  return { domain, types: SPEND_PERMISSION_TYPES, primaryType: 'SpendPermission' as const, message, start: message.start };
}

/** Allowance (permit or approve, unless already in place) → sign the permission → POST it; the service activates and charges the first period. */
export async function subscribe(ctx: Ctx, method: AllowanceMethod, hasAllowance: boolean): Promise<Subscription> {
  let permit: Permit | undefined;
  if (!hasAllowance) {
    if (method === 'permit') permit = await signPermit(ctx);
    else await approve(ctx);
  }
  const { start, ...typed } = permissionTypedData(ctx.auth, ctx.account);
  ctx.onStep('signing');
  const signature = await signTypedData(ctx.config, { account: ctx.account, ...typed });
  ctx.onStep('activating');
  return api.post<Subscription>(`/v1/subscriptions/authorize/${encodeURIComponent(ctx.token)}`, { payer: ctx.account, start, signature, ...(permit ? { permit } : {}) });
}

/** The react-query key of the public read (the page polls it; the flows refresh it). */
export const authorizationKey = (token: string) => ['subscription-authorization', token];
