/** One name per chain on every page (dashboard, onboarding, checkout). */
const NAMES: Record<number, string> = { 84532: 'Base Sepolia', 8453: 'Base' };
const TEST_NETWORKS = new Set([84532]);

export function chainName(chainId: number): string {
  return NAMES[chainId] ?? `Chain ${chainId}`;
}

export function isTestNetwork(chainId: number): boolean {
  return TEST_NETWORKS.has(chainId);
}

/** The network picker of every form: the name, and "test network" where it is one. */
export const CHAIN_OPTIONS = [84532, 8453].map((id) => ({ value: String(id), label: isTestNetwork(id) ? `${chainName(id)} (test network)` : chainName(id) }));
