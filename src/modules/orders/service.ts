import { zeroAddress, type Address } from 'viem';
import { createPayOrderSigner, payOrderJson, toBytes32Id, type PayOrderMessage } from '../../chain/eip712.js';
import type { Config } from '../../config.js';
import type { Db, Executor } from '../../db/client.js';
import { isUniqueViolation } from '../../db/errors.js';
import type { OrderState } from '../../db/schema.js';
import { AppError, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { formatUnits, parseAmount } from '../../lib/money.js';
import { recordAlert } from '../alerts/service.js';
import type { ChainRuntime, ChainsService } from '../chains/service.js';
import type { OrderPaidEvent } from './paid-event.js';
import { emitEvent, type EventType } from '../events/service.js';
import { recordResponseInTx, recordsResponse } from '../idempotency/context.js';
import { applyPaidMany, paidMismatches, sessionCompletedObject } from './apply-paid-many.js';
import { ordersRepo, type NewOrderRow, type OrderRow } from './repo.js';
import { listOrders } from './list-orders.js';
import { DIRECT_ORDER_DEFAULT_SECONDS, type ListOrdersFilters } from './schemas.js';
import { serializeOrder } from './serialize.js';
import { computeSplit } from './split.js';
import { ORDER_TRANSITIONS, invalidTransitionMessage, type OrderTrigger } from './state.js';

export type NewOrderInput = {
  merchantExternalId: string;
  orderNo: string;
  chainId: number;
  amount: string;
  metadata: Record<string, unknown>;
  deadline: Date;
  payer: Address | null;
  checkoutSessionId: string | null;
};

/**
 * Who creates an order: the platform, and the API key that still has to be found unrevoked when the request's
 * key was recognised from memory rather than read (api/middleware/auth.ts, `callerOf`): the statement that
 * reads the signing context or inserts the order checks it (ordersRepo `signingContext`, `insertIfCurrent`).
 */
export type Caller = { platformId: string; uncheckedKeyId: string | null };
export type OrdersHooks = {
  /** Called whenever a transition of the order was written (inside its transaction). */
  onTransition?: (orderId: string) => void;
};

/** The platform and merchant rows an order is signed from, as `ordersRepo.signingContext` reads them. */
type SigningContext = {
  platform: { platform_fee_bps: number; platform_wallet: string };
  merchant: { id: string; external_id: string; merchant_wallet: string; reserve_bps: number; chain_id: number; state: string };
};
const CONTEXT_MEMORY = 10_000;

export function createOrdersService(db: Db, config: Config, chains: ChainsService, hooks: OrdersHooks = {}) {
  let signer: ReturnType<typeof createPayOrderSigner> | undefined;
  const signPayOrder = (chainId: number, router: Address, msg: PayOrderMessage) =>
    (signer ??= createPayOrderSigner(chains.requireSigner()))(chainId, router, msg);

  // The platform and merchant rows each order was last signed from, per (platform, merchant external id).
  // Never trusted: an order signed from them is inserted only if the rows still match (`create`).
  const contexts = new Map<string, SigningContext>();
  const contextKey = (platformId: string, merchantExternalId: string) => `${platformId}\u0000${merchantExternalId}`;
  function remember(key: string, context: SigningContext) {
    if (contexts.size >= CONTEXT_MEMORY) contexts.clear();
    contexts.set(key, context);
  }

  function parseUnits(amount: string) {
    const parsed = parseAmount(amount);
    if (!parsed.ok) throw new AppError('validation_failed', `amount ${parsed.reason}`, 'amount');
    return parsed.units;
  }

  /** Reads what signing needs (and, for a key not read yet, that it is unrevoked), with the API's errors. */
  async function readContext({ platformId, uncheckedKeyId }: Caller, input: NewOrderInput): Promise<SigningContext> {
    const found = await ordersRepo.signingContext(db, platformId, input.merchantExternalId, uncheckedKeyId);
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
  async function signRow(platformId: string, { platform, merchant }: SigningContext, chain: ChainRuntime, units: bigint, input: NewOrderInput): Promise<NewOrderRow> {
    const split = computeSplit(units, config.serviceFeeBps, platform.platform_fee_bps, merchant.reserve_bps);
    const id = newId('ord');
    const message: PayOrderMessage = {
      orderId: toBytes32Id(id),
      token: chain.usdc,
      amount: units,
      payer: input.payer ?? zeroAddress,
      merchant: merchant.merchant_wallet as Address,
      platform: platform.platform_wallet as Address,
      serviceFee: split.serviceFee,
      platformFee: split.platformFee,
      reserveHold: split.reserveHold,
      deadline: BigInt(Math.floor(input.deadline.getTime() / 1000)),
    };
    const signature = await signPayOrder(chain.chainId, chain.router, message);
    return {
      id,
      platform_id: platformId,
      merchant_id: merchant.id,
      merchant_external_id: merchant.external_id,
      order_no: input.orderNo,
      chain_id: chain.chainId,
      token: 'USDC',
      token_address: chain.usdc,
      amount: units,
      service_fee_bps: config.serviceFeeBps,
      platform_fee_bps: platform.platform_fee_bps,
      reserve_bps: merchant.reserve_bps,
      service_fee: split.serviceFee,
      platform_fee: split.platformFee,
      merchant_gross: split.merchantGross,
      reserve_hold: split.reserveHold,
      merchant_available: split.merchantAvailable,
      metadata: JSON.stringify(input.metadata),
      state: 'pending_payment',
      pay_to: chain.router,
      onchain_id: message.orderId,
      payer_address: input.payer,
      merchant_wallet: merchant.merchant_wallet,
      platform_wallet: platform.platform_wallet,
      eip712: JSON.stringify(payOrderJson(chain.chainId, chain.router, message)),
      signature,
      deadline_at: input.deadline,
      checkout_session_id: input.checkoutSessionId,
    };
  }

  /** Validate, read the platform and merchant, split and sign: the row to insert (checkout sessions use it). */
  async function prepare(caller: Caller, input: NewOrderInput): Promise<NewOrderRow> {
    const chain = chains.get(input.chainId);
    const units = parseUnits(input.amount);
    return signRow(caller.platformId, await readContext(caller, input), chain, units, input);
  }

  /**
   * With `ifCurrent`: only if the platform and merchant rows still hold what the row froze from them, and the
   * key is unrevoked (undefined otherwise), see `create`.
   */
  async function insertPrepared(tx: Executor, row: NewOrderRow): Promise<OrderRow>;
  async function insertPrepared(tx: Executor, row: NewOrderRow, ifCurrent: { liveKeyId: string | null }): Promise<OrderRow | undefined>;
  async function insertPrepared(tx: Executor, row: NewOrderRow, ifCurrent?: { liveKeyId: string | null }) {
    try {
      return ifCurrent ? await ordersRepo.insertIfCurrent(tx, row, ifCurrent.liveKeyId) : await ordersRepo.insert(tx, row);
    } catch (err) {
      if (isUniqueViolation(err, 'orders_order_no_live')) {
        throw new AppError('conflict', `order_no '${row.order_no}' is already used on this platform.`, 'order_no');
      }
      throw err;
    }
  }

  /** Writes a new order, with its stored answer when the request carries an Idempotency-Key. */
  function write(insert: (ex: Executor) => Promise<OrderRow | undefined>) {
    // Without an Idempotency-Key nothing is written with the order, and one INSERT is atomic by itself:
    // BEGIN and COMMIT would be two more round trips on the hottest path (bench: −0.3 ms CPU per order).
    if (!recordsResponse()) return insert(db);
    return db.transaction().execute(async (tx) => {
      const order = await insert(tx);
      if (order) await recordResponseInTx(tx, 201, serializeOrder(order));
      return order;
    });
  }

  /**
   * One state change and its event in one transaction (outbox). Compare-and-set on the allowed
   * from-states; when nothing matched, the current state is re-read and named in the error.
   */
  async function transition(tx: Executor, order: OrderRow, trigger: OrderTrigger, set: Partial<Record<string, unknown>>, eventType?: EventType) {
    const t = ORDER_TRANSITIONS[trigger];
    const updated = await ordersRepo.transition(tx, order.id, t.from, { ...set, state: t.to });
    if (!updated) {
      const current = (await ordersRepo.findAnyById(tx, order.id))?.state ?? order.state;
      throw new AppError('invalid_state', invalidTransitionMessage(order.id, current as OrderState, trigger));
    }
    hooks.onTransition?.(updated.id);
    if (eventType) await emitEvent(tx, { platformId: updated.platform_id, type: eventType, data: { object: serializeOrder(updated) } });
    return updated;
  }

  /** Orders of checkout sessions expire with their session. */
  async function expireOne(tx: Executor, order: OrderRow, now: Date) {
    const expired = await transition(tx, order, 'expire', { expired_at: now, order_no_released: true }, 'order.expired');
    if (expired.checkout_session_id) {
      const session = await tx.updateTable('checkout_sessions').set({ state: 'expired' })
        .where('id', '=', expired.checkout_session_id).where('state', '=', 'open').returningAll().executeTakeFirst();
      if (session) {
        await emitEvent(tx, { platformId: expired.platform_id, type: 'checkout.session.expired', data: { object: { id: session.id, object: 'checkout_session', state: 'expired', order_id: expired.id, expires_at: session.expires_at.toISOString(), metadata: expired.metadata } } });
      }
    }
    return expired;
  }

  return {
    prepare,
    insertPrepared,
    transition,

    /**
     * One statement per order once this instance has signed for the merchant: the order is signed from the
     * platform and merchant rows as last read, and inserted only if they still say the same and the key is
     * unrevoked (`ordersRepo.insertIfCurrent`). Otherwise, and the first time, the rows are read (with the
     * API's errors) and remembered. A change made anywhere, by any instance, is therefore never signed past.
     */
    async create(caller: Caller, body: { merchant_id: string; order_no: string; chain_id: number; amount: string; metadata?: Record<string, unknown> | undefined; expires_in_seconds?: number | undefined }) {
      const chain = chains.get(body.chain_id);
      const input: NewOrderInput = {
        merchantExternalId: body.merchant_id,
        orderNo: body.order_no,
        chainId: body.chain_id,
        amount: body.amount,
        metadata: body.metadata ?? {},
        // The router checks the deadline against block time: it is set on the chain's clock.
        deadline: new Date(chain.clock.now().getTime() + (body.expires_in_seconds ?? DIRECT_ORDER_DEFAULT_SECONDS) * 1000),
        payer: null,
        checkoutSessionId: null,
      };
      const units = parseUnits(input.amount);
      const key = contextKey(caller.platformId, input.merchantExternalId);
      const known = contexts.get(key);
      if (known && known.merchant.chain_id === input.chainId) {
        const row = await signRow(caller.platformId, known, chain, units, input);
        const order = await write((ex) => insertPrepared(ex, row, { liveKeyId: caller.uncheckedKeyId }));
        if (order) return order;
        contexts.delete(key);
      }
      const context = await readContext(caller, input);
      remember(key, context);
      const row = await signRow(caller.platformId, context, chain, units, input);
      return (await write((ex) => insertPrepared(ex, row)))!;
    },

    /**
     * An order past its deadline on the wall clock may still have been paid in time: it stays
     * pending_payment until the indexed chain says otherwise (expireDue), never expired on read.
     */
    async get(platformId: string, id: string): Promise<OrderRow> {
      const order = await ordersRepo.findById(db, platformId, id);
      if (!order) throw notFound('order');
      return order;
    },

    list: (platformId: string, q: ListOrdersFilters) => listOrders({ db }, platformId, q),

    async summary(platformId: string, now = new Date()) {
      const since14 = new Date(now.getTime() - 13 * 86_400_000);
      since14.setUTCHours(0, 0, 0, 0);
      const [counts, gross, daily] = await Promise.all([
        ordersRepo.counts(db, platformId),
        ordersRepo.grossSince(db, platformId, new Date(now.getTime() - 86_400_000)),
        ordersRepo.grossDaily(db, platformId, since14),
      ]);
      const byDay = new Map(daily.map((d) => [d.day, d]));
      const gross_daily = Array.from({ length: 14 }, (_, i) => {
        const day = new Date(since14.getTime() + i * 86_400_000).toISOString().slice(0, 10);
        const d = byDay.get(day);
        return { day, gross: formatUnits(BigInt(d?.gross ?? '0')), count: Number(d?.count ?? 0) };
      });
      return {
        total: Number(counts.total),
        pending: Number(counts.pending),
        confirmed: Number(counts.confirmed),
        gross_24h: formatUnits(BigInt(gross.gross)),
        gross_daily,
      };
    },

    /**
     * The indexer saw OrderPaid at the confirmation depth. The payment must match the order the service
     * signed to the unit (amount, fees, reserve, token, merchant, platform); anything else is recorded as
     * an alert and never confirmed. Chain wins over expiry: a paid expired order is confirmed.
     */
    async applyPaid(tx: Executor, ev: OrderPaidEvent) {
      const order = await tx.selectFrom('orders').selectAll().where('onchain_id', '=', ev.orderId).forUpdate().executeTakeFirst();
      if (!order) {
        await recordAlert(tx, ev.chainId, 'unknown_order', { order_onchain_id: ev.orderId, tx_hash: ev.txHash });
        return;
      }
      const mismatches = paidMismatches(order, ev);
      if (mismatches.length > 0) {
        await recordAlert(tx, ev.chainId, 'paid_mismatch', { order_id: order.id, fields: mismatches, tx_hash: ev.txHash, amount: ev.amount });
        return;
      }
      if (order.state !== 'pending_payment' && order.state !== 'expired') {
        await recordAlert(tx, ev.chainId, 'paid_unexpected_state', { order_id: order.id, state: order.state, tx_hash: ev.txHash });
        return;
      }
      const confirmed = await transition(tx, order, 'paid', {
        paid_by: ev.payer, tx_hash: ev.txHash, block_number: ev.blockNumber, paid_at: ev.blockTime,
        confirmed_at: new Date(), reserve_remaining: order.reserve_hold, reserve_release_at: new Date(Number(ev.releaseAfter) * 1000),
      }, 'order.confirmed');
      const session = await tx.updateTable('checkout_sessions').set({ state: 'completed', completed_at: new Date() })
        .where('order_id', '=', order.id).where('state', 'in', ['open', 'expired']).returningAll().executeTakeFirst();
      if (session) {
        await emitEvent(tx, { platformId: order.platform_id, type: 'checkout.session.completed', data: { object: sessionCompletedObject(session, confirmed) } });
      }
      return confirmed;
    },

    /** applyPaid for a run of OrderPaid logs, set-based (the indexer's batched path; apply-paid-many.ts). */
    applyPaidMany: (tx: Executor, events: OrderPaidEvent[]) => applyPaidMany(tx, events, hooks.onTransition),

    /**
     * Sweeper, on the chain's clock: `indexedUntil` is the timestamp of the block up to which the indexer has
     * applied every log at confirmation depth. A pending order whose deadline is before it was not paid in
     * time (blocks after it are later still, and the router refuses a payment past the deadline), so it
     * expires — with its open session — and frees its order_no. Never on the wall clock: a payment mined
     * before the deadline but not yet at depth keeps the order pending (issue 15, the expiry race).
     */
    async expireDue(chainId: number, indexedUntil: Date, batch = 200): Promise<number> {
      return db.transaction().execute(async (tx) => {
        const due = await ordersRepo.lockDue(tx, chainId, indexedUntil, batch);
        const now = new Date();
        for (const { id } of due) {
          const order = (await ordersRepo.findAnyById(tx, id))!;
          await expireOne(tx, order, now);
        }
        return due.length;
      });
    },
  };
}

export type OrdersService = ReturnType<typeof createOrdersService>;
