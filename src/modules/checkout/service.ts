import type { Address } from 'viem';
import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import { AppError } from '../../lib/errors.js';
import { newId, newSecret, sha256Hex } from '../../lib/ids.js';
import type { ChainsService } from '../chains/service.js';
import { recordResponseInTx } from '../idempotency/context.js';
import type { OrderRow } from '../orders/repo.js';
import { serializeOrder } from '../orders/serialize.js';
import type { GaslessView } from '../relay/gasless-view.js';
import type { Caller, OrdersService } from '../orders/service.js';
import { sessionsRepo } from './repo.js';
import type { PublicSessionCache } from './public-cache.js';
import { SESSION_DEFAULT_SECONDS } from './schemas.js';
import { serializeSession } from './serialize.js';

export type CreateSessionInput = {
  merchant_id: string;
  order_no: string;
  chain_id: number;
  amount: string;
  success_url?: string | undefined;
  cancel_url?: string | undefined;
  payer_address?: Address | undefined;
  expires_in_seconds?: number | undefined;
  metadata?: Record<string, unknown> | undefined;
};

/**
 * A checkout session is a thin wrapper around an order (SPEC §1): its order is created with it, in the
 * same transaction, with deadline_at = expires_at and the payer lock copied into the signed PayOrder.
 * The session token is a bearer secret in the hosted URL: only its hash is stored.
 */
/** The session read's `gasless` block for an order (modules/relay gaslessView), passed in by services.ts. */
export type GaslessOf = (order: OrderRow) => Promise<GaslessView>;

export function createCheckoutService(db: Db, config: Config, chains: ChainsService, orders: OrdersService, gaslessOf: GaslessOf, cache?: PublicSessionCache) {
  /**
   * Public read for the hosted page and success-page spinners. Carries only what a buyer needs:
   * display names, price, split, the signed order and chain details; no platform internals.
   */
  async function readPublic(hash: string) {
    // Past expires_at on the wall clock the session stays open until the indexed chain has passed the
    // deadline (orders.expireDue): a payment mined in time may still be on its way to confirmation depth.
    const found = await sessionsRepo.findPublic(db, hash);
    if (!found) throw new AppError('not_found', 'No such checkout session.');
    const s = found.session;
    const order = serializeOrder(found.order);
    const chain = chains.get(order.chain_id);
    const gasless = await gaslessOf(found.order);
    return {
      session: s,
      body: {
        id: s.id,
        object: 'checkout_session' as const,
        state: s.state,
        expires_at: s.expires_at.toISOString(),
        success_url: s.success_url,
        cancel_url: s.cancel_url,
        payer_address: s.payer_address,
        merchant: { name: s.merchant_name },
        platform: { name: s.platform_name },
        order: {
          id: order.id, order_no: order.order_no, state: order.state, chain_id: order.chain_id, token: order.token,
          token_address: order.token_address, amount: order.amount, computed_split: order.computed_split, pay_to: order.pay_to,
          eip712: order.eip712, signature: order.signature, deadline_at: order.deadline_at, tx_hash: order.tx_hash,
        },
        chain: {
          chain_id: chain.chainId,
          name: chain.name,
          // Only the devnet's RPC is handed to browsers; a production RPC URL may carry a provider key.
          rpc_url: config.env === 'devnet' ? chain.rpcUrl : null,
          confirmations_required: chain.confirmations,
          block_explorer_url: chain.blockExplorerUrl,
        },
        gasless,
      },
    };
  }

  return {
    async create(caller: Caller, input: CreateSessionInput) {
      const { platformId } = caller;
      const id = newId('cs');
      const token = newSecret('cs_live');
      // expires_at is the signed PayOrder's deadline: on the chain's clock, which the router checks.
      const chain = chains.get(input.chain_id);
      const expiresAt = new Date(chain.clock.now().getTime() + (input.expires_in_seconds ?? SESSION_DEFAULT_SECONDS) * 1000);
      const prepared = await orders.prepare(caller, {
        merchantExternalId: input.merchant_id,
        orderNo: input.order_no,
        chainId: input.chain_id,
        amount: input.amount,
        metadata: input.metadata ?? {},
        deadline: expiresAt,
        payer: input.payer_address ?? null,
        checkoutSessionId: id,
      });
      const url = `${config.dashboardUrl}/checkout/${token}`;
      return db.transaction().execute(async (tx) => {
        const order = await orders.insertPrepared(tx, prepared);
        const row = await sessionsRepo.insert(tx, {
          id,
          platform_id: platformId,
          order_id: order.id,
          token_hash: sha256Hex(token),
          state: 'open',
          success_url: input.success_url ?? null,
          cancel_url: input.cancel_url ?? null,
          payer_address: input.payer_address ?? null,
          expires_at: expiresAt,
        });
        const body = serializeSession(row, token, url);
        await recordResponseInTx(tx, 201, body);
        return body;
      });
    },

    /** The order behind a session token (the public relay endpoint is keyed by it); 404 as the read. */
    async orderIdOfToken(token: string): Promise<string> {
      const found = token.startsWith('cs_live_') ? await sessionsRepo.findPublic(db, sha256Hex(token)) : undefined;
      if (!found) throw new AppError('not_found', 'No such checkout session.');
      return found.order.id;
    },

    /** The public read as JSON text: polled by every buyer's page, so answered from `cache` when it can be. */
    async readPublicJson(token: string): Promise<string> {
      if (!token.startsWith('cs_live_')) throw new AppError('not_found', 'No such checkout session.');
      const hash = sha256Hex(token);
      const cached = cache?.get(hash);
      if (cached !== undefined) return cached;
      const ticket = cache?.ticket() ?? 0;
      const { session, body } = await readPublic(hash);
      const json = JSON.stringify(body);
      // Kept until the session changes (NOTIFY on expiry or payment), not until expires_at: the state does not
      // change on the wall clock.
      cache?.set(ticket, hash, session.order_id, json, null);
      return json;
    },
  };
}

export type CheckoutService = ReturnType<typeof createCheckoutService>;
