/**
 * Names for the generated OpenAPI types (./generated/openapi.ts). Every type here is an alias of the
 * document's schemas or operations: nothing is described twice.
 */
import type { components, paths } from './generated/openapi.js';

type Schemas = components['schemas'];
type Method = 'get' | 'post' | 'delete';
type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;

/** The JSON request body of an operation. */
export type BodyOf<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { requestBody: { content: { 'application/json': infer B } } } ? B : never;
/** The query parameters of an operation. */
export type QueryOf<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

export type Health = Schemas['Health'];
export type Me = Schemas['Me'];
export type ApiKey = Schemas['ApiKey'];
export type AuditEvent = Schemas['AuditEvent'];
export type Merchant = Schemas['Merchant'];
export type MerchantInvitation = Schemas['MerchantInvitation'];
export type PublicInvitation = Schemas['PublicInvitation'];
export type CompleteInvitationResponse = Schemas['CompleteInvitationResponse'];
export type Order = Schemas['Order'];
export type OrderState = Order['state'];
export type OrderSummary = Schemas['OrderSummary'];
export type Relay = Schemas['Relay'];
export type Gasless = Schemas['Gasless'];
export type GaslessTypedData = Schemas['GaslessTypedData'];
export type GaslessUsage = Schemas['GaslessUsage'];
export type ComputedSplit = Schemas['ComputedSplit'];
export type Eip712TypedData = Schemas['Eip712TypedData'];
export type CheckoutSession = Schemas['CheckoutSession'];
export type PublicCheckoutSession = Schemas['PublicCheckoutSession'];
export type Refund = Schemas['Refund'];
export type Settlement = Schemas['Settlement'];
export type WebhookEndpoint = Schemas['WebhookEndpoint'];
export type DeletedWebhookEndpoint = Schemas['DeletedWebhookEndpoint'];
export type WebhookReplay = Schemas['WebhookReplay'];
export type OnboardSelfResponse = Schemas['OnboardSelfResponse'];
export type Balance = Schemas['Balance'];
export type MerchantBalance = Schemas['MerchantBalance'];
export type BalanceTransaction = Schemas['BalanceTransaction'];
export type NetVolume = Schemas['NetVolume'];
export type SettlementOrder = Schemas['SettlementOrder'];
export type WebhookDelivery = Schemas['WebhookDelivery'];
export type Event = Schemas['Event'];
export type ApiErrorBody = Schemas['Error'];
export type ApiErrorCode = ApiErrorBody['error']['code'];
export type ApiErrorType = ApiErrorBody['error']['type'];

/** A webhook body; narrow it on `type` (e.g. `order.confirmed` carries an Order in `data.object`). */
export type WebhookEvent = Schemas['WebhookEvent'];
export type WebhookEventType = WebhookEvent['type'];
export type WebhookEventOf<T extends WebhookEventType> = Extract<WebhookEvent, { type: T }>;

/** One page of a list: `{ object: 'list', data, has_more, next_cursor }`. */
export type Page<T> = Omit<Schemas['OrderList'], 'data'> & { data: T[] };

export type CreateMerchantParams = BodyOf<'/v1/onboarding/merchants', 'post'>;
export type ListMerchantsParams = QueryOf<'/v1/merchants', 'get'>;
export type CreateInvitationParams = BodyOf<'/v1/merchants/invitations', 'post'>;
export type RetrieveInvitationParams = QueryOf<'/v1/merchants/invitations/{token}', 'get'>;
export type CompleteInvitationParams = BodyOf<'/v1/merchants/invitations/{token}/complete', 'post'>;
export type CreateOrderParams = BodyOf<'/v1/orders', 'post'>;
/** Charge later: `amount` (human units) to capture of an authorized order; all of it when omitted. */
export type CaptureOrderParams = Schemas['CaptureOrderRequest'];
/** A buyer's signed ReceiveWithAuthorization, relayed by the service (gasless payment). */
export type RelayParams = BodyOf<'/v1/orders/{id}/relay', 'post'>;
export type ListOrdersParams = QueryOf<'/v1/orders', 'get'>;
export type CreateCheckoutSessionParams = BodyOf<'/v1/checkout/sessions', 'post'>;
export type Subscription = Schemas['Subscription'];
export type SubscriptionState = Subscription['state'];
export type PublicSubscriptionAuthorization = Schemas['PublicSubscriptionAuthorization'];
export type CreateSubscriptionParams = BodyOf<'/v1/subscriptions', 'post'>;
export type ListSubscriptionsParams = QueryOf<'/v1/subscriptions', 'get'>;
export type CancelSubscriptionParams = Schemas['CancelSubscriptionRequest'];
/** The payer's signature of the public read's `typed_data` (with its message.start), and an optional EIP-2612 permit to the manager. */
export type AuthorizeSubscriptionParams = BodyOf<'/v1/subscriptions/authorize/{token}', 'post'>;
export type CreateRefundParams = BodyOf<'/v1/refunds', 'post'>;
export type ListRefundsParams = QueryOf<'/v1/refunds', 'get'>;
export type ListSettlementsParams = QueryOf<'/v1/settlements', 'get'>;
export type CreateWebhookEndpointParams = BodyOf<'/v1/webhooks/endpoints', 'post'>;
export type ReplayWebhookEventsParams = BodyOf<'/v1/webhooks/endpoints/{id}/replay', 'post'>;
export type ListWebhookEndpointsParams = QueryOf<'/v1/webhooks/endpoints', 'get'>;
export type ListDeliveriesParams = QueryOf<'/v1/webhooks/endpoints/{id}/deliveries', 'get'>;
export type ListEventsParams = QueryOf<'/v1/events', 'get'>;
export type ListKeysParams = QueryOf<'/v1/developers/keys', 'get'>;
export type ListAuditLogParams = QueryOf<'/v1/developers/audit_log', 'get'>;
