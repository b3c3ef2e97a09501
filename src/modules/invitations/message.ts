import { getAddress, type Address } from 'viem';

/**
 * The exact text a merchant signs with personal_sign (EIP-191) to prove they own the wallet.
 * It names the service, the platform, the external_id, the wallet, the chain and the invitation token,
 * so a signature cannot be replayed for another platform, merchant, wallet, chain or invitation.
 * The server rebuilds it from its own records at completion; the client's copy is never trusted.
 */
export function onboardingMessage(p: {
  platformName: string;
  platformId: string;
  externalId: string;
  wallet: Address;
  chainId: number;
  token: string;
}): string {
  return [
    'Trisettle merchant onboarding',
    '',
    `I own this wallet and accept payments from ${p.platformName} settled by Trisettle.`,
    '',
    `Platform: ${p.platformName} (${p.platformId})`,
    `Merchant ID: ${p.externalId}`,
    `Wallet: ${getAddress(p.wallet)}`,
    `Chain ID: ${p.chainId}`,
    `Invitation: ${p.token}`,
  ].join('\n');
}
