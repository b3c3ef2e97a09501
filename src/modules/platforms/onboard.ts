import type { Address } from 'viem';
import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import { AppError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { recordResponseInTx } from '../idempotency/context.js';
import type { KeysService, SessionActor } from '../keys/index.js';
import { platformsRepo } from './repo.js';
import { serializeOnboarded } from './serialize.js';

export type OnboardInput = {
  name: string;
  platform_wallet: Address;
  chain_id: number;
  platform_fee_bps: number;
  default_reserve_bps: number;
};

/**
 * POST /v1/onboarding/self. One platform per account; the unique user_id makes a racing second
 * call a 409, not a second platform. Its first secret and publishable keys are issued (and audited, as the
 * signed-in user's key.created) in the same transaction.
 */
export async function onboardPlatform(deps: { db: Db; config: Config; keys: KeysService }, actor: SessionActor, input: OnboardInput) {
  if (input.platform_fee_bps + deps.config.serviceFeeBps > 10_000) {
    throw new AppError('validation_failed',
      `platform_fee_bps plus the service fee (${deps.config.serviceFeeBps} bps) must not exceed 10000`, 'platform_fee_bps');
  }
  return deps.db.transaction().execute(async (tx) => {
    const platform = await platformsRepo.insert(tx, {
      id: newId('plt'),
      user_id: actor.userId,
      name: input.name,
      platform_wallet: input.platform_wallet,
      chain_id: input.chain_id,
      platform_fee_bps: input.platform_fee_bps,
      default_reserve_bps: input.default_reserve_bps,
    });
    if (!platform) throw new AppError('conflict', 'This account already has a platform.');
    const secret = await deps.keys.issue(tx, platform.id, 'secret', actor);
    const publishable = await deps.keys.issue(tx, platform.id, 'publishable', actor);
    const result = { platform, secretKey: secret.raw, publishableKey: publishable.raw };
    // The secret key is shown only in this answer: it commits with the platform, so a retry after a
    // crash replays it instead of finding "already has a platform" and losing the key.
    await recordResponseInTx(tx, 201, serializeOnboarded(result));
    return result;
  });
}
