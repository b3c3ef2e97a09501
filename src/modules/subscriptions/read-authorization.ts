import { encodeFunctionData, erc20Abi, zeroAddress, type Address } from 'viem';
import { notFound } from '../../lib/errors.js';
import { sha256Hex } from '../../lib/ids.js';
import { formatUnits } from '../../lib/money.js';
import type { SubscriptionsDeps } from './deps.js';
import { endOf, NO_END, saltOf, typedDataJson, type PermissionJson, type SpendPermission } from './permission.js';
import { subscriptionsRepo, type ChargeRow, type SubscriptionRow } from './repo.js';
import { splitJson } from './serialize.js';

/**
 * The allowance the manager needs: amount × min(max_periods, 12) — a year of monthly charges, never more than the
 * permission can take. The permission bounds each pull; the allowance bounds the total, and once it is used up a
 * charge fails for allowance (dunning) until the payer allows more (docs/subscriptions.md).
 */
export const ALLOWANCE_PERIODS = 12;
export const allowancePeriods = (maxPeriods: number | null) => Math.min(maxPeriods ?? ALLOWANCE_PERIODS, ALLOWANCE_PERIODS);

/** The permission a payer signs for this subscription if they sign at `start` (unix seconds, chain clock). */
export function permissionOf(s: SubscriptionRow, payer: Address, start: number): SpendPermission {
  return {
    payer, token: s.token_address as Address, merchant: s.merchant_wallet as Address, platform: s.platform_wallet as Address,
    amount: s.amount, period: s.period_seconds, start, end: endOf(start, s.period_seconds, s.max_periods),
    serviceFeeBps: s.service_fee_bps, platformFeeBps: s.platform_fee_bps, reserveBps: s.reserve_bps, salt: saltOf(s.id),
  };
}

const PERMIT_TYPES = {
  Permit: [{ name: 'owner', type: 'address' }, { name: 'spender', type: 'address' }, { name: 'value', type: 'uint256' }, { name: 'nonce', type: 'uint256' }, { name: 'deadline', type: 'uint256' }],
};

const noncesAbi = [{ type: 'function', name: 'nonces', stateMutability: 'view', inputs: [{ name: 'owner', type: 'address' }], outputs: [{ type: 'uint256' }] }] as const;
/** The one RPC read a public request may add (?payer=): bounded well below the client's own timeout and retries. */
export const NONCE_READ_TIMEOUT_MS = 3_000;

/** The token's nonces(owner), or null when the chain does not answer within the bound. */
async function nonceOf(deps: Pick<SubscriptionsDeps, 'chains'>, s: SubscriptionRow, owner: Address): Promise<bigint | null> {
  let timer: NodeJS.Timeout | undefined;
  const read = deps.chains.get(s.chain_id).publicClient.readContract({ address: s.token_address as Address, abi: noncesAbi, functionName: 'nonces', args: [owner] });
  const late = new Promise<null>((resolve) => { timer = setTimeout(() => resolve(null), NONCE_READ_TIMEOUT_MS); });
  try {
    return await Promise.race([read, late]);
  } catch {
    return null;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * EIP-2612 permit typed data to the manager (the token's domain read once per token), or null where the token has none.
 * The nonce is the token's nonces(owner) only when the payer is known (?payer=, before activation: one RPC read);
 * otherwise "0", a placeholder the client replaces (`nonce_filled: false`), as the hosted page does.
 */
async function permitOf(deps: Pick<SubscriptionsDeps, 'chains' | 'tokenDomains'>, s: SubscriptionRow, value: bigint, payer: Address | undefined) {
  let domain;
  try {
    domain = await deps.tokenDomains.get(deps.chains.get(s.chain_id).publicClient, s.chain_id, s.token_address as Address);
  } catch {
    return null;
  }
  const owner = payer ?? (s.payer_address as Address | null) ?? zeroAddress;
  const nonce = payer && s.state === 'incomplete' ? await nonceOf(deps, s, payer) : null;
  const message = { owner, spender: s.manager_address, value: value.toString(), nonce: (nonce ?? 0n).toString(), deadline: Math.floor(s.expires_at.getTime() / 1000).toString() };
  return { typed_data: { domain, types: PERMIT_TYPES, primary_type: 'Permit', message }, nonce_filled: nonce !== null };
}

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** The end the payer signed (not one recomputed from now), or null for "until stopped" (max uint48). */
const signedEnd = (p: PermissionJson) => (Number(p.end) >= NO_END ? null : new Date(Number(p.end) * 1000).toISOString());

/**
 * Once signed: the stored permission (what the payer's wallet passes to the manager's revoke(p), so the manage page
 * needs no secret key) and the schedule. Null before activation: nothing about a payer is public before they sign.
 */
const authorizedOf = (r: SubscriptionRow, charges: ChargeRow[]) =>
  r.permission === null ? null : {
    permission: r.permission as unknown as PermissionJson, permission_hash: r.permission_hash, payer: r.payer,
    start_at: new Date(Number((r.permission as unknown as PermissionJson).start) * 1000).toISOString(), end_at: signedEnd(r.permission as unknown as PermissionJson),
    current_period_end: iso(r.current_period_end), next_charge_at: iso(r.next_charge_at), periods_charged: r.next_period,
    cancel_at_period_end: r.cancel_at_period_end, cancel_reason: r.cancel_reason, canceled_at: iso(r.canceled_at),
    charges: charges.map((o) => ({
      period: o.subscription_period, amount: formatUnits(o.amount), state: o.state, created_at: o.created_at.toISOString(), paid_at: iso(o.confirmed_at), tx_hash: o.tx_hash,
    })),
  };

/** The charges the payer sees on the manage page: the newest, what the chain shows anyway (no order ids, nothing of the platform's). */
export const PUBLIC_CHARGES_LIMIT = 24;

/**
 * GET /v1/subscriptions/authorize/{token} (public): everything a page needs to subscribe a wallet — display names,
 * terms and split, the SpendPermission's typed data (start = the chain's clock now), the manager and router, and the
 * allowance with both ways to give it (permit typed data, approve calldata). Two database reads (the link, its charges
 * once signed); the token's domain is cached per token, so a caller costs no RPC — but one nonces(payer) read with
 * ?payer= before activation (bounded by NONCE_READ_TIMEOUT_MS; the route keeps the per-address limit).
 */
export async function readAuthorization(deps: Pick<SubscriptionsDeps, 'db' | 'chains' | 'tokenDomains' | 'config'>, token: string, q: { payer?: Address | undefined } = {}) {
  const r = await subscriptionsRepo.findPublic(deps.db, sha256Hex(token));
  if (!r) throw notFound('subscription');
  const chain = deps.chains.get(r.chain_id);
  const start = Math.floor(chain.clock.now().getTime() / 1000);
  const p = permissionOf(r, q.payer ?? (r.payer_address as Address | null) ?? zeroAddress, start);
  const charges = r.permission === null ? [] : await subscriptionsRepo.publicCharges(deps.db, r.id, PUBLIC_CHARGES_LIMIT);
  const periods = allowancePeriods(r.max_periods);
  const value = r.amount * BigInt(periods);
  return {
    id: r.id, object: 'subscription_authorization' as const, state: r.state, expires_at: r.expires_at.toISOString(),
    merchant: { name: r.merchant_name }, platform: { name: r.platform_name },
    amount: formatUnits(r.amount), computed_split: splitJson(r),
    interval: r.interval, interval_count: r.interval_count, period_seconds: r.period_seconds, max_periods: r.max_periods,
    payer_address: r.payer_address, success_url: r.success_url, cancel_url: r.cancel_url,
    chain: { chain_id: chain.chainId, name: chain.name, rpc_url: deps.config.env === 'devnet' ? chain.rpcUrl : null, confirmations_required: chain.confirmations, block_explorer_url: chain.blockExplorerUrl },
    token: { symbol: r.token, address: r.token_address }, manager_address: r.manager_address, router_address: chain.router,
    typed_data: typedDataJson(chain.chainId, r.manager_address as Address, p),
    allowance: {
      spender: r.manager_address, amount: value.toString(), periods_covered: periods, permit: await permitOf(deps, r, value, q.payer),
      approve: { to: r.token_address, function: 'approve(address,uint256)', data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [r.manager_address as Address, value] }) },
    },
    authorized: authorizedOf(r, charges),
  };
}
