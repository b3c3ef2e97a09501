import type { Address } from 'viem';
import { AppError, notFound } from '../../lib/errors.js';
import { newId, newSecret, sha256Hex } from '../../lib/ids.js';
import { emitEvent } from '../events/service.js';
import { recordResponseInTx } from '../idempotency/context.js';
import { parseUnits, type Caller } from '../orders/prepare.js';
import type { SubscriptionsDeps } from './deps.js';
import { periodSecondsOf } from './permission.js';
import { subscriptionsRepo } from './repo.js';
import { LINK_DEFAULT_SECONDS } from './schemas.js';
import { serializeSubscription } from './serialize.js';
import type { SubscriptionInterval } from '../../db/schema.js';

export type CreateSubscriptionInput = {
  merchant_id: string; chain_id: number; amount: string; interval: SubscriptionInterval; interval_count?: number | undefined;
  max_periods?: number | undefined; payer_address?: Address | undefined; metadata?: Record<string, unknown> | undefined;
  success_url?: string | undefined; cancel_url?: string | undefined; expires_in_seconds?: number | undefined;
};

/** The manager of the chain, or 422: subscriptions need SUBSCRIPTION_MANAGER_ADDRESS_<chain>. */
export function managerOf(deps: Pick<SubscriptionsDeps, 'chains'>, chainId: number): Address {
  const manager = deps.chains.get(chainId).subscriptionManager;
  if (!manager) throw new AppError('unsupported_chain', `Subscriptions are not configured on chain ${chainId} (no SubscriptionManager).`, 'chain_id');
  return manager;
}

async function termsOf(deps: Pick<SubscriptionsDeps, 'db'>, caller: Caller, input: CreateSubscriptionInput) {
  const t = await subscriptionsRepo.terms(deps.db, caller.platformId, input.merchant_id);
  if (!t) throw notFound('platform');
  if (!t.merchant_id || !t.merchant_wallet || t.reserve_bps === null) throw new AppError('not_found', `No merchant with external_id '${input.merchant_id}'.`, 'merchant_id');
  if (t.state !== 'active') throw new AppError('invalid_state', `Merchant '${input.merchant_id}' is ${t.state}.`, 'merchant_id');
  if (t.chain_id !== input.chain_id) throw new AppError('validation_failed', `Merchant '${input.merchant_id}' is on chain ${t.chain_id}, not ${input.chain_id}.`, 'chain_id');
  return { ...t, merchant_id: t.merchant_id, merchant_wallet: t.merchant_wallet, reserve_bps: t.reserve_bps };
}

/**
 * POST /v1/subscriptions. The split terms (fee rates, wallets, reserve) are frozen now: the payer signs them and
 * every charge pays them. The link token is a bearer secret stored hashed, so the answer carrying it is built here
 * and recorded for the Idempotency-Key in the same transaction as the row and subscription.created.
 */
export async function createSubscription(deps: SubscriptionsDeps, caller: Caller, input: CreateSubscriptionInput) {
  const units = parseUnits(input.amount);
  const chain = deps.chains.get(input.chain_id);
  const manager = managerOf(deps, input.chain_id);
  const terms = await termsOf(deps, caller, input);
  const token = newSecret('sub_live');
  const count = input.interval_count ?? 1;
  const expiresAt = new Date(chain.clock.now().getTime() + (input.expires_in_seconds ?? LINK_DEFAULT_SECONDS) * 1000);
  const url = `${deps.config.dashboardUrl}/subscribe/${token}`;
  return deps.db.transaction().execute(async (tx) => {
    const row = await subscriptionsRepo.insert(tx, {
      id: newId('sub'), platform_id: caller.platformId, merchant_id: terms.merchant_id, merchant_external_id: input.merchant_id,
      chain_id: input.chain_id, token: 'USDC', token_address: chain.usdc, manager_address: manager, amount: units,
      interval: input.interval, interval_count: count, period_seconds: periodSecondsOf(input.interval, count), max_periods: input.max_periods ?? null,
      service_fee_bps: deps.config.serviceFeeBps, platform_fee_bps: terms.platform_fee_bps, reserve_bps: terms.reserve_bps,
      merchant_wallet: terms.merchant_wallet, platform_wallet: terms.platform_wallet, metadata: JSON.stringify(input.metadata ?? {}),
      success_url: input.success_url ?? null, cancel_url: input.cancel_url ?? null, payer_address: input.payer_address ?? null,
      token_hash: sha256Hex(token), expires_at: expiresAt, state: 'incomplete',
    });
    await emitEvent(tx, { platformId: caller.platformId, type: 'subscription.created', data: { object: serializeSubscription(row) } });
    const body = serializeSubscription(row, url);
    await recordResponseInTx(tx, 201, body);
    return body;
  });
}
