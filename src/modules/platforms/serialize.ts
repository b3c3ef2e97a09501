import type { PlatformRow } from './repo.js';

export function serializeOnboarded(r: { platform: PlatformRow; secretKey: string; publishableKey: string }) {
  return {
    platform_id: r.platform.id,
    name: r.platform.name,
    secret_key: r.secretKey,
    publishable_key: r.publishableKey,
    platform_wallet: r.platform.platform_wallet,
    chain_id: r.platform.chain_id,
    platform_fee_bps: r.platform.platform_fee_bps,
    default_reserve_bps: r.platform.default_reserve_bps,
    created_at: r.platform.created_at.toISOString(),
  };
}
