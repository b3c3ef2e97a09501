import { sql, type Insertable, type Selectable, type Updateable } from 'kysely';
import type { Executor } from '../../db/client.js';
import type { Cursor } from '../../db/pagination.js';
import type { OrdersTable, SubscriptionState, SubscriptionsTable } from '../../db/schema.js';
import { SUBSCRIPTION_TRANSITIONS, type SubscriptionTrigger } from './state.js';

export type SubscriptionRow = Selectable<SubscriptionsTable>;
/** What the public read shows of a charge's order. */
export type ChargeRow = Pick<Selectable<OrdersTable>, 'subscription_period' | 'amount' | 'state' | 'created_at' | 'confirmed_at' | 'tx_hash'>;

/** SQL of subscriptions. Orders of charges are written by the orders module (insertPrepared), never here. */
export const subscriptionsRepo = {
  insert: (db: Executor, row: Insertable<SubscriptionsTable>) =>
    db.insertInto('subscriptions').values(row).returningAll().executeTakeFirstOrThrow(),

  /** The frozen terms of a new subscription: the platform's fee and wallet, the merchant's wallet, reserve, chain and state. */
  terms: (db: Executor, platformId: string, merchantExternalId: string) =>
    db.selectFrom('platforms as p')
      .leftJoin('merchants as m', (j) => j.onRef('m.platform_id', '=', 'p.id').on('m.external_id', '=', merchantExternalId))
      .select(['p.platform_fee_bps', 'p.platform_wallet', 'p.name as platform_name', 'm.id as merchant_id', 'm.external_id', 'm.merchant_wallet', 'm.reserve_bps', 'm.chain_id', 'm.state'])
      .where('p.id', '=', platformId).executeTakeFirst(),

  findOfPlatform: (db: Executor, platformId: string, id: string) =>
    db.selectFrom('subscriptions').selectAll().where('platform_id', '=', platformId).where('id', '=', id).executeTakeFirst(),

  lockOfPlatform: (db: Executor, platformId: string, id: string) =>
    db.selectFrom('subscriptions').selectAll().where('platform_id', '=', platformId).where('id', '=', id).forUpdate().executeTakeFirst(),

  lockById: (db: Executor, id: string) => db.selectFrom('subscriptions').selectAll().where('id', '=', id).forUpdate().executeTakeFirst(),

  lockByToken: (db: Executor, tokenHash: string) =>
    db.selectFrom('subscriptions').selectAll().where('token_hash', '=', tokenHash).forUpdate().executeTakeFirst(),

  lockByPermissionHash: (db: Executor, hash: string) =>
    db.selectFrom('subscriptions').selectAll().where('permission_hash', '=', hash.toLowerCase()).forUpdate().executeTakeFirst(),

  /** The public read: the subscription of a link token with the two display names. */
  findPublic: (db: Executor, tokenHash: string) =>
    db.selectFrom('subscriptions as s').innerJoin('merchants as m', 'm.id', 's.merchant_id').innerJoin('platforms as p', 'p.id', 's.platform_id')
      .selectAll('s').select(['m.name as merchant_name', 'p.name as platform_name']).where('s.token_hash', '=', tokenHash).executeTakeFirst(),

  list: (db: Executor, platformId: string, f: { state?: SubscriptionState | undefined; merchantExternalId?: string | undefined }, limit: number, cursor: Cursor | null) => {
    let q = db.selectFrom('subscriptions').selectAll().where('platform_id', '=', platformId);
    if (f.state) q = q.where('state', '=', f.state);
    if (f.merchantExternalId) q = q.where('merchant_external_id', '=', f.merchantExternalId);
    if (cursor) q = q.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(cursor.createdAt, cursor.id)));
    return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit + 1).execute();
  },

  /** Compare-and-set on the trigger's from-states (SUBSCRIPTION_TRANSITIONS); undefined when the state moved on. */
  transition: (db: Executor, id: string, trigger: SubscriptionTrigger, set: Updateable<SubscriptionsTable>, now: Date) => {
    const t = SUBSCRIPTION_TRANSITIONS[trigger];
    return db.updateTable('subscriptions').set({ ...set, state: t.to, updated_at: now })
      .where('id', '=', id).where('state', 'in', [...t.from]).returningAll().executeTakeFirst();
  },

  /** Columns that do not change the state (schedule, counters). */
  update: (db: Executor, id: string, set: Updateable<SubscriptionsTable>, now: Date) =>
    db.updateTable('subscriptions').set({ ...set, updated_at: now }).where('id', '=', id).returningAll().executeTakeFirstOrThrow(),

  countFailure: (db: Executor, id: string) =>
    db.updateTable('subscriptions').set({ authorize_failures: sql`authorize_failures + 1` }).where('id', '=', id).execute(),

  /** Subscriptions of the chain with a charge due at or before the indexed chain time and none in flight, locked (sweepers take disjoint rows). */
  lockDue: (db: Executor, chainId: number, indexedUntil: Date, limit: number) =>
    db.selectFrom('subscriptions').selectAll().where('chain_id', '=', chainId).where('state', 'in', ['active', 'past_due'])
      .where('charge_order_id', 'is', null).where('next_charge_at', '<=', indexedUntil)
      .orderBy('next_charge_at').limit(limit).forUpdate().skipLocked().execute(),

  /** The platform's subscriptions a charge may still come for (the test clock's plan of a move). */
  openOfPlatform: (db: Executor, platformId: string) =>
    db.selectFrom('subscriptions').select(['id', 'start_at', 'period_seconds', 'max_periods', 'next_period', 'next_charge_at', 'charge_order_id'])
      .where('platform_id', '=', platformId).where('state', 'in', ['active', 'past_due']).where('start_at', 'is not', null).execute(),

  /** Unauthorized links past expires_at on the indexed chain time. */
  lockExpiredLinks: (db: Executor, chainId: number, indexedUntil: Date, limit: number) =>
    db.selectFrom('subscriptions').selectAll().where('chain_id', '=', chainId).where('state', '=', 'incomplete')
      .where('expires_at', '<=', indexedUntil).orderBy('expires_at').limit(limit).forUpdate().skipLocked().execute(),

  /** A charge's order as the outcome handler reads it (the orders module moves it). */
  orderById: (db: Executor, id: string) => db.selectFrom('orders').selectAll().where('id', '=', id).executeTakeFirst(),

  /** The public columns of a subscription's charge orders, newest first (the manage page; orders_subscription_idx). */
  publicCharges: (db: Executor, subscriptionId: string, limit: number): Promise<ChargeRow[]> =>
    db.selectFrom('orders').select(['subscription_period', 'amount', 'state', 'created_at', 'confirmed_at', 'tx_hash'])
      .where('subscription_id', '=', subscriptionId).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute(),
};
