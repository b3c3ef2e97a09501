import { sql } from 'kysely';
import type { Executor } from '../../db/client.js';

export type EventWithDeliveries = {
  id: string; type: string; created_at: Date;
  deliveries: { id: string; status: string; attempts: number; endpoint_id: string; endpoint_url: string }[] | null;
};
export type ChainTx = { tx_hash: string; block_number: bigint | string; event_name: string; log_index: number; applied_at: Date; chain_id: number };

export type SettlementOfOrder = {
  id: string; onchain_id: string; state: string; created_at: Date; confirmed_at: Date | null; tx_hash: string | null;
  order_id: string; amount: bigint | string; item_state: string;
};

export const timelineRepo = {
  findRefund: (db: Executor, platformId: string, id: string) =>
    db.selectFrom('refunds').selectAll().where('platform_id', '=', platformId).where('id', '=', id).executeTakeFirst(),

  refundsOfOrder: (db: Executor, platformId: string, orderId: string) =>
    db.selectFrom('refunds').selectAll().where('platform_id', '=', platformId).where('order_id', '=', orderId).orderBy('created_at').limit(200).execute(),

  async settlementsOfOrders(db: Executor, orderIds: string[]): Promise<SettlementOfOrder[]> {
    if (orderIds.length === 0) return [];
    return (await sql<SettlementOfOrder>`
      select s.id, s.onchain_id, s.state, s.created_at, s.confirmed_at, s.tx_hash, i.order_id, i.amount, i.state as item_state
      from settlement_items i join settlements s on s.id = i.settlement_id
      where i.order_id = any(${orderIds}::text[]) order by s.created_at limit 200`.execute(db)).rows;
  },

  /** The platform's events about these objects (data.object.id, or an order's id in data.object.order_id), with their deliveries. */
  async eventsAbout(db: Executor, platformId: string, objectIds: string[]): Promise<EventWithDeliveries[]> {
    if (objectIds.length === 0) return [];
    return (await timelineRepo.eventsAboutQuery(platformId, objectIds).execute(db)).rows;
  },

  /**
   * The statement of eventsAbout (exposed so a test can EXPLAIN it). Each branch of the OR is one probe of an
   * expression index of migration 032 (events_object_id_idx, events_object_order_id_idx), not a walk of the
   * platform's events: the expressions here must stay exactly those of the indexes. The filter sits in a subquery
   * fenced by OFFSET 0 and the sort outside it: the service prepares its statements, and PostgreSQL's generic plan of
   * the flat form (no parameter values known) walked events_platform_idx in created_at order filtering every event of
   * the platform until 500 matched, tens of seconds per timeline at 1.5M events (issue 37's scale bench).
   */
  eventsAboutQuery: (platformId: string, objectIds: string[]) =>
    sql<EventWithDeliveries>`
      select e.id, e.type, e.created_at,
        (select jsonb_agg(jsonb_build_object('id', d.id, 'status', d.state, 'attempts', d.attempts, 'endpoint_id', w.id, 'endpoint_url', w.url) order by d.created_at)
           from webhook_deliveries d join webhook_endpoints w on w.id = d.endpoint_id where d.event_id = e.id and d.event_created_at = e.created_at) as deliveries
      from (select e.id, e.type, e.created_at from events e
        where e.platform_id = ${platformId}
          and ((e.data->'object'->>'id') = any(${objectIds}::text[]) or (e.data->'object'->>'order_id') = any(${objectIds}::text[]))
        offset 0) e
      order by e.created_at, e.id limit 500`,

  /** Router logs the indexer applied for these on-chain ids (orders, refunds, settlement batches). */
  async chainLogs(db: Executor, onchainIds: string[]): Promise<ChainTx[]> {
    if (onchainIds.length === 0) return [];
    return (await sql<ChainTx>`
      select tx_hash, block_number, event_name, log_index, applied_at, chain_id from chain_logs
      where onchain_id = any(${onchainIds.map((i) => i.toLowerCase())}::text[]) or onchain_id = any(${onchainIds}::text[])
      order by block_number, log_index limit 500`.execute(db)).rows;
  },

  ordersOfMerchant: (db: Executor, platformId: string, merchantId: string) =>
    db.selectFrom('orders').selectAll().where('platform_id', '=', platformId).where('merchant_id', '=', merchantId)
      .orderBy('created_at', 'desc').limit(100).execute(),

  refundsOfOrders: (db: Executor, platformId: string, orderIds: string[]) =>
    orderIds.length === 0 ? Promise.resolve([]) : db.selectFrom('refunds').selectAll().where('platform_id', '=', platformId)
      .where('order_id', 'in', orderIds).orderBy('created_at').limit(200).execute(),
};
