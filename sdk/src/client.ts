import { Core, segment, type RequestOptions, type TrisettleOptions } from './core.js';
import type { ListResult } from './pagination.js';
import { X402Api } from './x402/api.js';
import type {
  ApiKey, AuditEvent, CaptureOrderParams, CheckoutSession, CompleteInvitationParams, CompleteInvitationResponse,
  CreateCheckoutSessionParams, CreateInvitationParams, CreateMerchantParams, CreateOrderParams, CreateRefundParams,
  CreateWebhookEndpointParams, DeletedWebhookEndpoint, Event, Health, ListAuditLogParams, ListDeliveriesParams, ListEventsParams,
  ListKeysParams, ListMerchantsParams, ListOrdersParams, ListRefundsParams, ListSettlementsParams,
  ListWebhookEndpointsParams, Me, Merchant, MerchantInvitation, Order, OrderSummary, PublicCheckoutSession, PublicInvitation,
  GaslessUsage, Relay, RelayParams,
  ReplayWebhookEventsParams, RetrieveInvitationParams, Refund, Settlement, WebhookDelivery, WebhookEndpoint, WebhookEventType, WebhookReplay,
  AuthorizeSubscriptionParams, CancelSubscriptionParams, CreateSubscriptionParams, ListSubscriptionsParams, PublicSubscriptionAuthorization, Subscription,
} from './types.js';

/** Sub-merchants: direct creation (wallet known) and lookups by id or external_id. */
class Merchants {
  constructor(private readonly core: Core) {}
  create(params: CreateMerchantParams, o?: RequestOptions) {
    return this.core.request<Merchant>('POST', '/v1/onboarding/merchants', { ...o, body: params });
  }
  /** By id (mch_…) or by your external_id. */
  retrieve(idOrExternalId: string, o?: RequestOptions) {
    return this.core.request<Merchant>('GET', `/v1/merchants/${segment(idOrExternalId)}`, o);
  }
  list(params: ListMerchantsParams = {}, o?: RequestOptions): ListResult<Merchant> {
    return this.core.list<Merchant>('/v1/merchants', params, o);
  }
}

/** Merchant invitations: the merchant binds their own wallet on the hosted onboarding page. */
class Invitations {
  constructor(private readonly core: Core) {}
  create(params: CreateInvitationParams, o?: RequestOptions) {
    return this.core.request<MerchantInvitation>('POST', '/v1/merchants/invitations', { ...o, body: params });
  }
  /** The 50 most recent, with state and attached wallet (a single page). */
  list(o?: RequestOptions): ListResult<MerchantInvitation> {
    return this.core.list<MerchantInvitation>('/v1/merchants/invitations', {}, o);
  }
  /** Public read by token; with `wallet`, includes the exact message that wallet must personal_sign. */
  retrieve(token: string, params: RetrieveInvitationParams = {}, o?: RequestOptions) {
    return this.core.request<PublicInvitation>('GET', `/v1/merchants/invitations/${segment(token)}`, { ...o, query: params });
  }
  /** Public: completes onboarding with the wallet's EIP-191 signature of `message`. */
  complete(token: string, params: CompleteInvitationParams, o?: RequestOptions) {
    return this.core.request<CompleteInvitationResponse>('POST', `/v1/merchants/invitations/${segment(token)}/complete`, { ...o, body: params });
  }
}

/** Direct orders: the response carries what the buyer's wallet needs (pay_to, eip712, signature). */
class Orders {
  constructor(private readonly core: Core) {}
  create(params: CreateOrderParams, o?: RequestOptions) {
    return this.core.request<Order>('POST', '/v1/orders', { ...o, body: params });
  }
  retrieve(id: string, o?: RequestOptions) {
    return this.core.request<Order>('GET', `/v1/orders/${segment(id)}`, o);
  }
  /**
   * Charge later (capture_method "manual"): captures an authorized order, all of it or `amount`; the rest goes back
   * to the payer in the same transaction. 202: the order, still authorized; order.confirmed follows on chain.
   */
  capture(id: string, params: CaptureOrderParams = {}, o?: RequestOptions) {
    return this.core.request<Order>('POST', `/v1/orders/${segment(id)}/capture`, { ...o, body: params });
  }
  /** Charge later: gives an authorized order's money back to the payer. 202: the order; order.voided follows on chain. */
  void(id: string, o?: RequestOptions) {
    return this.core.request<Order>('POST', `/v1/orders/${segment(id)}/void`, o);
  }
  /** The order's latest gasless relay (state, tx_hash, error, gas_cost_wei); 404 when it has none. */
  retrieveRelay(id: string, o?: RequestOptions) {
    return this.core.request<Relay>('GET', `/v1/orders/${segment(id)}/relay`, o);
  }
  /**
   * Gasless payment: relays the buyer's signed USDC ReceiveWithAuthorization (to = router, value = amount,
   * nonce = hashPayOrder(order), validBefore ≤ deadline + 1) with the service's relayer. 202: the relay.
   */
  relay(id: string, params: RelayParams, o?: RequestOptions) {
    return this.core.request<Relay>('POST', `/v1/orders/${segment(id)}/relay`, { ...o, body: params });
  }
  /** Relays accepted and relayer gas spent per day, the last 30 days. */
  gaslessUsage(o?: RequestOptions) {
    return this.core.request<GaslessUsage>('GET', '/v1/gasless/usage', o);
  }
  list(params: ListOrdersParams = {}, o?: RequestOptions): ListResult<Order> {
    return this.core.list<Order>('/v1/orders', params, o);
  }
  summary(o?: RequestOptions) {
    return this.core.request<OrderSummary>('GET', '/v1/orders/summary', o);
  }
}

/** Hosted checkout: redirect the buyer to `url`; listen for order.confirmed / checkout.session.completed. */
class CheckoutSessions {
  constructor(private readonly core: Core) {}
  create(params: CreateCheckoutSessionParams, o?: RequestOptions) {
    return this.core.request<CheckoutSession>('POST', '/v1/checkout/sessions', { ...o, body: params });
  }
  /** Public read by session_token (cs_live_…): state and the order to pay. */
  retrieve(sessionToken: string, o?: RequestOptions) {
    return this.core.request<PublicCheckoutSession>('GET', `/v1/checkout/sessions/${segment(sessionToken)}`, o);
  }
  /** Public: relays the buyer's signature of the session's `gasless.typed_data` (what the hosted page does). */
  relay(sessionToken: string, params: RelayParams, o?: RequestOptions) {
    return this.core.request<Relay>('POST', `/v1/checkout/sessions/${segment(sessionToken)}/relay`, { ...o, body: params });
  }
}

/**
 * Subscriptions: send the payer to `url` (or build a page on `retrieveAuthorization`); each period's charge is an order
 * (order.confirmed, subscription_id set); listen for subscription.activated / past_due / canceled.
 */
class Subscriptions {
  constructor(private readonly core: Core) {}
  create(params: CreateSubscriptionParams, o?: RequestOptions) {
    return this.core.request<Subscription>('POST', '/v1/subscriptions', { ...o, body: params });
  }
  retrieve(id: string, o?: RequestOptions) {
    return this.core.request<Subscription>('GET', `/v1/subscriptions/${segment(id)}`, o);
  }
  list(params: ListSubscriptionsParams = {}, o?: RequestOptions): ListResult<Subscription> {
    return this.core.list<Subscription>('/v1/subscriptions', params, o);
  }
  /** At once (the permission is revoked on chain), or `{ at_period_end: true }`. */
  cancel(id: string, params: CancelSubscriptionParams = {}, o?: RequestOptions) {
    return this.core.request<Subscription>('POST', `/v1/subscriptions/${segment(id)}/cancel`, { ...o, body: params });
  }
  /**
   * Public read by link token (sub_live_…): terms, the SpendPermission typed data and the allowance to give. With
   * `{ payer }` the permit's owner and nonce are the payer's (`nonces(payer)`), ready to sign.
   */
  retrieveAuthorization(token: string, params: { payer?: string } = {}, o?: RequestOptions) {
    return this.core.request<PublicSubscriptionAuthorization>('GET', `/v1/subscriptions/authorize/${segment(token)}`, { ...o, query: params });
  }
  /** Public: the payer's signature of the permission; activates the subscription and queues the first charge. */
  authorize(token: string, params: AuthorizeSubscriptionParams, o?: RequestOptions) {
    return this.core.request<Subscription>('POST', `/v1/subscriptions/authorize/${segment(token)}`, { ...o, body: params });
  }
}

class Refunds {
  constructor(private readonly core: Core) {}
  /** Whole remaining amount unless `amount` is given. */
  create(params: CreateRefundParams, o?: RequestOptions) {
    return this.core.request<Refund>('POST', '/v1/refunds', { ...o, body: params });
  }
  retrieve(id: string, o?: RequestOptions) {
    return this.core.request<Refund>('GET', `/v1/refunds/${segment(id)}`, o);
  }
  list(params: ListRefundsParams = {}, o?: RequestOptions): ListResult<Refund> {
    return this.core.list<Refund>('/v1/refunds', params, o);
  }
}

class Settlements {
  constructor(private readonly core: Core) {}
  retrieve(id: string, o?: RequestOptions) {
    return this.core.request<Settlement>('GET', `/v1/settlements/${segment(id)}`, o);
  }
  list(params: ListSettlementsParams = {}, o?: RequestOptions): ListResult<Settlement> {
    return this.core.list<Settlement>('/v1/settlements', params, o);
  }
}

class WebhookEndpoints {
  constructor(private readonly core: Core) {}
  /** The response's `secret` (whsec_…) is shown only here and on rollSecret: store it for verifyWebhook. */
  create(params: CreateWebhookEndpointParams, o?: RequestOptions) {
    return this.core.request<WebhookEndpoint>('POST', '/v1/webhooks/endpoints', { ...o, body: params });
  }
  retrieve(id: string, o?: RequestOptions) {
    return this.core.request<WebhookEndpoint>('GET', `/v1/webhooks/endpoints/${segment(id)}`, o);
  }
  list(params: ListWebhookEndpointsParams = {}, o?: RequestOptions): ListResult<WebhookEndpoint> {
    return this.core.list<WebhookEndpoint>('/v1/webhooks/endpoints', params, o);
  }
  delete(id: string, o?: RequestOptions) {
    return this.core.request<DeletedWebhookEndpoint>('DELETE', `/v1/webhooks/endpoints/${segment(id)}`, o);
  }
  /** New secret; for 24 h deliveries carry both signatures, so receivers can switch without losing events. */
  rollSecret(id: string, o?: RequestOptions) {
    return this.core.request<WebhookEndpoint>('POST', `/v1/webhooks/endpoints/${segment(id)}/roll-secret`, o);
  }
  listDeliveries(id: string, params: ListDeliveriesParams = {}, o?: RequestOptions): ListResult<WebhookDelivery> {
    return this.core.list<WebhookDelivery>(`/v1/webhooks/endpoints/${segment(id)}/deliveries`, params, o);
  }
  redeliver(deliveryId: string, o?: RequestOptions) {
    return this.core.request<WebhookDelivery>('POST', `/v1/webhooks/deliveries/${segment(deliveryId)}/redeliver`, o);
  }
  /** Sends again every subscribed event created in [since, until) (ISO 8601), at most 10 000 per call. */
  replay(id: string, params: ReplayWebhookEventsParams, o?: RequestOptions) {
    return this.core.request<WebhookReplay>('POST', `/v1/webhooks/endpoints/${segment(id)}/replay`, { ...o, body: params });
  }
}

class Events {
  constructor(private readonly core: Core) {}
  retrieve(id: string, o?: RequestOptions) {
    return this.core.request<Event>('GET', `/v1/events/${segment(id)}`, o);
  }
  list(params: ListEventsParams = {}, o?: RequestOptions): ListResult<Event> {
    return this.core.list<Event>('/v1/events', params, o);
  }
  /** A test event of `type` (any type the service sends, or test.ping): listed and delivered like a real one; its object is a sample with `test: true`. */
  emitTest(params: { type: WebhookEventType | 'test.ping' }, o?: RequestOptions) {
    return this.core.request<Event>('POST', '/v1/events/test', { ...o, body: params });
  }
}

/**
 * API keys. A secret key may list keys and revoke itself; creating keys and revoking other keys is for the
 * dashboard (signed in), so that one leaked key cannot lock its owner out.
 */
class Keys {
  constructor(private readonly core: Core) {}
  /** Active keys first, then revoked ones, newest first within each. */
  list(params: ListKeysParams = {}, o?: RequestOptions): ListResult<ApiKey> {
    return this.core.list<ApiKey>('/v1/developers/keys', params, o);
  }
  /** Revokes this client's own key at once (any other key of the platform: 403 forbidden). */
  revoke(id: string, o?: RequestOptions) {
    return this.core.request<ApiKey>('POST', `/v1/developers/keys/${segment(id)}/revoke`, o);
  }
}

/** Who created, rolled and revoked keys, when and from which address; newest first. */
class AuditLog {
  constructor(private readonly core: Core) {}
  list(params: ListAuditLogParams = {}, o?: RequestOptions): ListResult<AuditEvent> {
    return this.core.list<AuditEvent>('/v1/developers/audit_log', params, o);
  }
}

/**
 * The Trisettle API for a platform's backend.
 *
 *   const trisettle = new Trisettle({ secretKey: process.env.TRISETTLE_API_KEY!, baseUrl: process.env.TRISETTLE_API });
 *   const session = await trisettle.checkoutSessions.create({ merchant_id: 'shop-1', order_no: 'A-1', chain_id: 84532, token: 'USDC', amount: '25.00' });
 */
/** Where a Trisettle client keeps its transport, for the SDK's own helpers (x402); a registered symbol, so both builds (ESM, CJS) find it. */
export const CORE = Symbol.for('@trisettle/sdk/core');

export class Trisettle {
  readonly #core: Core;
  /** x402 for your own API (see `@trisettle/sdk/x402`): requirements for a 402, verify and settle a PAYMENT-SIGNATURE. */
  readonly x402: X402Api;
  readonly merchants: Merchants;
  readonly invitations: Invitations;
  readonly orders: Orders;
  readonly checkoutSessions: CheckoutSessions;
  readonly subscriptions: Subscriptions;
  readonly refunds: Refunds;
  readonly settlements: Settlements;
  readonly webhookEndpoints: WebhookEndpoints;
  readonly events: Events;
  readonly keys: Keys;
  readonly auditLog: AuditLog;

  constructor(options: TrisettleOptions) {
    const core = new Core(options);
    this.#core = core;
    this.merchants = new Merchants(core);
    this.invitations = new Invitations(core);
    this.orders = new Orders(core);
    this.checkoutSessions = new CheckoutSessions(core);
    this.subscriptions = new Subscriptions(core);
    this.refunds = new Refunds(core);
    this.settlements = new Settlements(core);
    this.webhookEndpoints = new WebhookEndpoints(core);
    this.events = new Events(core);
    this.keys = new Keys(core);
    this.auditLog = new AuditLog(core);
    this.x402 = new X402Api(core);
    Object.defineProperty(this, CORE, { value: core, enumerable: false });
  }

  get baseUrl(): string {
    return this.#core.baseUrl;
  }

  /** Who this key belongs to. */
  me(o?: RequestOptions) {
    return this.#core.request<Me>('GET', '/v1/me', o);
  }

  health(o?: RequestOptions) {
    return this.#core.request<Health>('GET', '/health', o);
  }
}
