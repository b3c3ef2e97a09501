import { isAddress } from 'viem';

/** The chains a deployment can run: Base Sepolia (test network) and Base. */
export const SUPPORTED_CHAIN_IDS = [84532, 8453] as const;
export type ChainId = (typeof SUPPORTED_CHAIN_IDS)[number];

/**
 * EIP-55: an address in mixed case carries a checksum, and a wrong one is a typo; it is refused rather
 * than silently re-checksummed into a different-looking address. All-lowercase/all-uppercase hex has no checksum.
 */
export function isWellFormedAddress(v: string): boolean {
  if (!/^0x[0-9a-fA-F]{40}$/.test(v)) return false;
  const hex = v.slice(2);
  return hex === hex.toLowerCase() || hex === hex.toUpperCase() || isAddress(v, { strict: true });
}
