import type { Db } from '../../db/client.js';
import type { Logger } from '../../lib/logger.js';
import { resealAll, type WebhookSecrets } from '../webhooks/secrets.js';

/** A condition under which the service must not start; main.ts prints the message and exits 78 (config). */
export class StartupRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartupRefusal';
  }
}

/**
 * Platforms whose fee leaves no room beside SERVICE_FEE_BPS (platform_fee_bps + service > 10000). Their every
 * order would fail to split (a 500), so the service refuses to start instead and names them.
 */
export async function platformsWithoutFeeRoom(db: Db, serviceFeeBps: number) {
  return db.selectFrom('platforms').select(['id', 'name', 'platform_fee_bps'])
    .where('platform_fee_bps', '>', 10_000 - serviceFeeBps).orderBy('id').execute();
}

/** Checks that need the migrated database, run by main.ts before it serves anything. */
export async function startupChecks(deps: { db: Db; serviceFeeBps: number; webhookSecrets: WebhookSecrets; logger: Logger }) {
  const crowded = await platformsWithoutFeeRoom(deps.db, deps.serviceFeeBps);
  if (crowded.length > 0) {
    const names = crowded.map((p) => `${p.id} ("${p.name.replace(/[\p{Cc}]/gu, ' ')}", ${p.platform_fee_bps} bps)`).join(', ');
    throw new StartupRefusal(
      `SERVICE_FEE_BPS=${deps.serviceFeeBps} leaves no room for the fee of ${crowded.length} platform(s): ${names}. ` +
      `platform_fee_bps + SERVICE_FEE_BPS must not exceed 10000; lower SERVICE_FEE_BPS or those platforms' fees.`);
  }
  const { resealed, unreadable } = await resealAll(deps.db, deps.webhookSecrets);
  if (resealed > 0) deps.logger.info({ resealed }, 'webhook secrets re-sealed with the current key');
  if (unreadable.length > 0) {
    throw new StartupRefusal(
      `${unreadable.length} webhook endpoint secret(s) were sealed with a key that is not configured (${unreadable.slice(0, 5).join(', ')}` +
      `${unreadable.length > 5 ? ', …' : ''}). Put the previous key back in WEBHOOK_SEAL_KEYS (after the new one), or the previous ` +
      `BETTER_AUTH_SECRET if keys were derived from it; see docs/integration.md "Webhook secrets at rest".`);
  }
}
