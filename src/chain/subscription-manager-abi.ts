/** The SubscriptionManager's ABI (compiled artifact, scripts/build-contracts.ts): what the service calls and indexes. */
export { subscriptionManagerAbi } from './artifacts/SubscriptionManager.js';
