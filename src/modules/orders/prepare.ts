import { zeroAddress, type Address } from 'viem';
import { payOrderJson, toBytes32Id, type PayOrderMessage } from '../../chain/eip712.js';
import { AppError, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { parseAmount } from '../../lib/money.js';
import type { ChainRuntime } from '../chains/service.js';
import type { OrdersDeps } from './deps.js';
import { ordersRepo, type NewOrderRow } from './repo.js';
import type { SigningContext } from './signing-memory.js';
import { CAPTURE_WITHIN_DEFAULT_SECONDS, type CaptureRequest } from './schemas.js';
import { computeSplit } from './split.js';

export type NewOrderInput = {
  merchantExternalId: string;
  orderNo: string;
  chainId: number;
  amount: string;
  metadata: Record<string, unknown>;
  deadline: Date;
  payer: Address | null;
  checkoutSessionId: string | null;
  /** Charge later: the instant (deadline + capture window) before which the authorization can be captured; null: automatic. */
  captureBefore: Date | null;
};

/**
 * capture_before of a new order: the signed deadline (deadline_at in whole seconds, as the PayOrder carries it)
 * plus the capture window, for a manual order; none for an automatic one. Whole seconds: it IS the signed
 * captureDeadline, the instant the router enforces.
 */
export function captureBeforeOf(body: CaptureRequest, deadline: Date): Date | null {
  if (body.capture_method !== 'manual') return null;
  return new Date((Math.floor(deadline.getTime() / 1000) + (body.capture_within_seconds ?? CAPTURE_WITHIN_DEFAULT_SECONDS)) * 1000);
}

/**
 * Who creates an order: the platform, and the API key that still has to be found unrevoked when the request's
 * key was recognised from memory rather than read (api/middleware/auth.ts, `callerOf`): the statement that
 * reads the signing context or inserts the order checks it (ordersRepo `signingContext`, `insertIfCurrent`).
 */
export type Caller = { platformId: string; uncheckedKeyId: string | null };

export function parseUnits(amount: string): bigint {
  const parsed = parseAmount(amount);
  if (!parsed.ok) throw new AppError('validation_failed', `amount ${parsed.reason}`, 'amount');
  return parsed.units;
}

/** Reads what signing needs (and, for a key not read yet, that it is unrevoked), with the API's errors. */
export async function readSigningContext(deps: Pick<OrdersDeps, 'db'>, { platformId, uncheckedKeyId }: Caller, input: NewOrderInput): Promise<SigningContext> {
  const found = await ordersRepo.signingContext(deps.db, platformId, input.merchantExternalId, uncheckedKeyId);
  if (!found) throw uncheckedKeyId === null ? notFound('platform') : new AppError('unauthenticated', 'Invalid or revoked API key.');
  const { platform, merchant } = found;
  if (!merchant) throw new AppError('not_found', `No merchant with external_id '${input.merchantExternalId}'.`, 'merchant_id');
  if (merchant.state !== 'active') throw new AppError('invalid_state', `Merchant '${merchant.external_id}' is ${merchant.state}.`, 'merchant_id');
  if (merchant.chain_id !== input.chainId) {
    throw new AppError('validation_failed', `Merchant '${merchant.external_id}' is on chain ${merchant.chain_id}, not ${input.chainId}.`, 'chain_id');
  }
  return { platform, merchant };
}

/**
 * Split and sign (CPU work, outside any transaction), returning the row to insert. The fee rates and
 * wallets are frozen onto the order: later changes to the platform or merchant never alter it.
 */
export async function signOrderRow(deps: Pick<OrdersDeps, 'config' | 'sign'>, platformId: string, { platform, merchant }: SigningContext, chain: ChainRuntime, units: bigint, input: NewOrderInput): Promise<NewOrderRow> {
  const { serviceFeeBps } = deps.config;
  const split = computeSplit(units, serviceFeeBps, platform.platform_fee_bps, merchant.reserve_bps);
  const id = newId('ord');
  const message: PayOrderMessage = {
    orderId: toBytes32Id(id), token: chain.usdc, amount: units, payer: input.payer ?? zeroAddress,
    merchant: merchant.merchant_wallet as Address, platform: platform.platform_wallet as Address,
    serviceFee: split.serviceFee, platformFee: split.platformFee, reserveHold: split.reserveHold,
    deadline: unixSeconds(input.deadline),
    captureDeadline: input.captureBefore ? unixSeconds(input.captureBefore) : 0n,
  };
  const signature = await deps.sign(chain.chainId, chain.router, message);
  return {
    id, platform_id: platformId, merchant_id: merchant.id, merchant_external_id: merchant.external_id, order_no: input.orderNo,
    chain_id: chain.chainId, token: 'USDC', token_address: chain.usdc, amount: units,
    service_fee_bps: serviceFeeBps, platform_fee_bps: platform.platform_fee_bps, reserve_bps: merchant.reserve_bps,
    service_fee: split.serviceFee, platform_fee: split.platformFee, merchant_gross: split.merchantGross,
    reserve_hold: split.reserveHold, merchant_available: split.merchantAvailable,
    metadata: JSON.stringify(input.metadata), state: 'pending_payment', pay_to: chain.router, onchain_id: message.orderId,
    payer_address: input.payer, merchant_wallet: merchant.merchant_wallet, platform_wallet: platform.platform_wallet,
    eip712: JSON.stringify(payOrderJson(chain.chainId, chain.router, message)), signature, deadline_at: input.deadline,
    checkout_session_id: input.checkoutSessionId, subscription_id: null, subscription_period: null,
    capture_method: input.captureBefore ? 'manual' : 'automatic', capture_before: input.captureBefore,
  };
}

const unixSeconds = (d: Date) => BigInt(Math.floor(d.getTime() / 1000));

/** Validate, read the platform and merchant, split and sign: the row to insert (checkout sessions use it). */
export async function prepareOrder(deps: Pick<OrdersDeps, 'db' | 'config' | 'chains' | 'sign'>, caller: Caller, input: NewOrderInput): Promise<NewOrderRow> {
  const chain = deps.chains.get(input.chainId);
  const units = parseUnits(input.amount);
  return signOrderRow(deps, caller.platformId, await readSigningContext(deps, caller, input), chain, units, input);
}
