import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import { AppError } from '../../lib/errors.js';
import type { Clock } from '../../lib/clock.js';
import type { WebhookSecrets } from './secrets.js';
import { assertWebhookUrl, policyForEnv, systemResolver, UnsafeUrlError, type Resolver } from './ssrf.js';

/** What the webhook endpoints API operations are built from (the deliverer has its own, deliver.ts). */
export type WebhooksApiDeps = { db: Db; secrets: WebhookSecrets; clock: Clock; checkUrl(url: string): Promise<void>; wake?: () => void };

/** An endpoint URL must pass the SSRF policy of this environment; a refusal is a 422 naming `url`. */
export function endpointUrlChecker(config: Pick<Config, 'env'>, resolve: Resolver = systemResolver) {
  const policy = policyForEnv(config.env);
  return async (url: string): Promise<void> => {
    try {
      await assertWebhookUrl(url, policy, resolve);
    } catch (err) {
      if (err instanceof UnsafeUrlError) throw new AppError('validation_failed', err.message, 'url');
      throw err;
    }
  };
}
