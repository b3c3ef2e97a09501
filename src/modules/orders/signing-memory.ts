/** The platform and merchant rows an order is signed from, as `ordersRepo.signingContext` reads them. */
export type SigningContext = {
  platform: { platform_fee_bps: number; platform_wallet: string };
  merchant: { id: string; external_id: string; merchant_wallet: string; reserve_bps: number; chain_id: number; state: string };
};

const CONTEXT_MEMORY = 10_000;

/**
 * The signing context each order was last signed from, per (platform, merchant external id), in this
 * instance. Never trusted: an order signed from it is inserted only if the rows still match (create.ts).
 */
export function createSigningMemory(capacity = CONTEXT_MEMORY) {
  const contexts = new Map<string, SigningContext>();
  const keyOf = (platformId: string, merchantExternalId: string) => `${platformId}\u0000${merchantExternalId}`;
  return {
    get: (platformId: string, merchantExternalId: string) => contexts.get(keyOf(platformId, merchantExternalId)),
    remember(platformId: string, merchantExternalId: string, context: SigningContext) {
      if (contexts.size >= capacity) contexts.clear();
      contexts.set(keyOf(platformId, merchantExternalId), context);
    },
    forget: (platformId: string, merchantExternalId: string) => contexts.delete(keyOf(platformId, merchantExternalId)),
  };
}
export type SigningMemory = ReturnType<typeof createSigningMemory>;
