import { getAddress, isAddress } from 'viem';
import type { Executor } from '../../db/client.js';
import { decodeCursor, toPage, type Page } from '../../db/pagination.js';
import { ordersRepo, type OrderRow, type OrderSearch } from './repo.js';
import type { ListOrdersFilters } from './schemas.js';

/**
 * What a search term can be, decided from its shape so each form is one indexed equality: a 20-byte hex is
 * a payer address (stored checksummed by the indexer, maybe lower case from a client), a 32-byte hex a
 * payment tx hash, anything else an order id or an order_no.
 */
export function searchOf(q: string | undefined): OrderSearch | undefined {
  if (!q) return undefined;
  if (/^0x[0-9a-fA-F]{40}$/.test(q) && isAddress(q, { strict: false })) return { kind: 'address', values: [...new Set([getAddress(q), q.toLowerCase()])] };
  if (/^0x[0-9a-fA-F]{64}$/.test(q)) return { kind: 'tx_hash', value: q.toLowerCase() };
  return { kind: 'text', value: q };
}

/** GET /v1/orders: a page of the platform's orders, newest first (rows: the route serializes). */
export async function listOrders(deps: { db: Executor }, platformId: string, q: ListOrdersFilters): Promise<Page<OrderRow>> {
  const filters = { state: q.state, merchantExternalId: q.merchant_id, subscriptionId: q.subscription_id, search: searchOf(q.q), from: q.from, to: q.to };
  const rows = await ordersRepo.list(deps.db, platformId, filters, q.limit, decodeCursor(q.cursor));
  return toPage(rows, q.limit, (row) => row);
}
