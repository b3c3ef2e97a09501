import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import { AppError } from '../../lib/errors.js';
import { sha256Hex } from '../../lib/ids.js';
import type { ChainsService } from '../chains/service.js';
import type { OrderRow } from '../orders/repo.js';
import type { GaslessView } from '../relay/gasless-view.js';
import type { PublicSessionCache } from './public-cache.js';
import { sessionsRepo } from './repo.js';
import { serializePublicSession, x402Url } from './serialize.js';

/** The session read's `gasless` block for an order (modules/relay gaslessView), passed in by services.ts. */
export type GaslessOf = (order: OrderRow) => Promise<GaslessView>;
export type PublicReadDeps = { db: Db; config: Config; chains: ChainsService; gaslessOf: GaslessOf; cache?: PublicSessionCache | undefined; orderIds: OrderIdsOfTokens };

const noSession = () => new AppError('not_found', 'No such checkout session.');

/** The stored hash of a session token; a string that is not one is 404 like an unknown token. */
function tokenHashOf(token: string): string {
  if (!token.startsWith('cs_live_')) throw noSession();
  return sha256Hex(token);
}

/**
 * GET /v1/checkout/sessions/{token}, as JSON text: polled by every buyer's page, so answered from `cache`
 * when it can be. Past expires_at on the wall clock the session stays open until the indexed chain has passed
 * the deadline (orders expireDue): a payment mined in time may still be on its way to confirmation depth.
 */
export async function getPublicSessionJson(deps: PublicReadDeps, token: string): Promise<string> {
  const hash = tokenHashOf(token);
  const cached = deps.cache?.get(hash);
  if (cached !== undefined) return cached;
  const ticket = deps.cache?.ticket() ?? 0;
  const found = await sessionsRepo.findPublic(deps.db, hash);
  if (!found) throw noSession();
  deps.orderIds.set(hash, found.order.id); // the page reads its session before it posts a relay
  const chain = deps.chains.get(found.order.chain_id);
  const json = JSON.stringify(serializePublicSession(found, chain, await deps.gaslessOf(found.order), deps.config.env === 'devnet', x402Url(deps.config.publicBaseUrl, token)));
  // Kept until the session changes (NOTIFY on expiry or payment), not until expires_at: the state does not
  // change on the wall clock.
  deps.cache?.set(ticket, hash, found.session.order_id, json, null);
  return json;
}

/**
 * Token hash → order id, remembered: a session's order never changes and sessions are never deleted, so the
 * answer needs no invalidation (and holds across instances). Bounded: the oldest entry goes first.
 */
export function createOrderIdsOfTokens(max = 50_000) {
  const ids = new Map<string, string>();
  return {
    get: (tokenHash: string) => ids.get(tokenHash),
    set(tokenHash: string, orderId: string) {
      if (ids.size >= max) ids.delete(ids.keys().next().value!);
      ids.set(tokenHash, orderId);
    },
  };
}
export type OrderIdsOfTokens = ReturnType<typeof createOrderIdsOfTokens>;

/** The order behind a session token (the public relay endpoint is keyed by it); 404 as the read. */
export async function orderIdOfSessionToken(deps: { db: Db; orderIds: OrderIdsOfTokens }, token: string): Promise<string> {
  const hash = tokenHashOf(token);
  const known = deps.orderIds.get(hash);
  if (known !== undefined) return known;
  const found = await sessionsRepo.findPublic(deps.db, hash);
  if (!found) throw noSession();
  deps.orderIds.set(hash, found.order.id);
  return found.order.id;
}
