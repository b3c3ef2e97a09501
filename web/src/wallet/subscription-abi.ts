/** The SubscriptionManager's ABI from the generated artifact (the bundler keeps only this export): the manage page calls revoke(p). */
export { subscriptionManagerAbi } from '../../../src/chain/artifacts/SubscriptionManager.js';
