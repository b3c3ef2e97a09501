import type { MerchantRow } from './repo.js';

export const serializeMerchant = (m: MerchantRow) => ({
  id: m.id,
  object: 'merchant' as const,
  external_id: m.external_id,
  name: m.name,
  merchant_wallet: m.merchant_wallet,
  chain_id: m.chain_id,
  reserve_bps: m.reserve_bps,
  state: m.state,
  created_at: m.created_at.toISOString(),
});
