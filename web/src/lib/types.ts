/**
 * The API's resource shapes, as the pages read them: aliases of the SDK's types, which are generated from the
 * OpenAPI document the service serves (schema → zod → OpenAPI → SDK → web). Nothing here re-declares a field;
 * only the better-auth session (not part of /v1) is described locally.
 */
import type * as Api from '../../../sdk/src/types.js';

export type List<T> = Api.Page<T>;
export type Me = Api.Me;
export type Onboarded = Api.OnboardSelfResponse;
export type ApiKey = Api.ApiKey;
export type AuditEvent = Api.AuditEvent;
export type Merchant = Api.Merchant;
export type Invitation = Api.MerchantInvitation;
export type PublicInvitation = Api.PublicInvitation;
export type Split = Api.ComputedSplit;
export type TypedData = Api.Eip712TypedData;
export type OrderState = Api.OrderState;
export type Order = Api.Order;
export type Summary = Api.OrderSummary;
/** The public session read (`GET /v1/checkout/sessions/{token}`) the hosted page polls. */
export type CheckoutSession = Api.PublicCheckoutSession;
/** What `POST /v1/checkout/sessions` answers. */
export type CreatedSession = Api.CheckoutSession;
export type Relay = Api.Relay;
export type GaslessTypedData = Api.GaslessTypedData;
export type Gasless = Api.Gasless;
export type GaslessUsage = Api.GaslessUsage;
export type WebhookEndpoint = Api.WebhookEndpoint;
export type Delivery = Api.WebhookDelivery;
export type WebhookEvent = Api.Event;
export type Refund = Api.Refund;
export type Balance = Api.Balance;
export type BalanceTotals = Omit<Api.MerchantBalance, 'merchant_id'>;
export type BalanceTransaction = Api.BalanceTransaction;
export type NetVolume = Api.NetVolume;
export type Settlement = Api.Settlement;
export type Subscription = Api.Subscription;
export type SubscriptionAuthorization = Api.PublicSubscriptionAuthorization;

/** better-auth's `GET /api/auth/get-session` (outside the /v1 document). */
export type SessionInfo = { user: { id: string; name: string; email: string }; session: { id: string; expiresAt: string } } | null;

/** Lists the pages offer as filters: the service's own constants (pure files, no server code comes with them). */
export { ORDER_STATES } from '../../../src/lib/order-states.js';
export { ALL_EVENTS, EVENT_TYPES } from '../../../src/modules/events/types.js';
export { BALANCE_TRANSACTION_TYPES } from '../../../src/modules/balance/types.js';
