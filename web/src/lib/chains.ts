/**
 * Where this deployment runs, as the server writes it into every page (api/routes/web.ts, a meta tag: the CSP
 * allows no inline script): the devnet flag and the chains it has an RPC for. Without the tag (vite dev, unit
 * tests) both public networks are offered and nothing is a devnet.
 */
type Network = { devnet: boolean; chains: { chain_id: number; name: string }[] };

const PUBLIC_NAMES: Record<number, string> = { 84532: 'Base Sepolia', 8453: 'Base' };
const TEST_NETWORKS = new Set([84532]);

function readNetwork(): Network {
  const fallback: Network = { devnet: false, chains: Object.entries(PUBLIC_NAMES).map(([id, name]) => ({ chain_id: Number(id), name })) };
  if (typeof document === 'undefined') return fallback;
  const content = document.querySelector('meta[name="trisettle-network"]')?.getAttribute('content');
  if (!content) return fallback;
  try {
    const parsed = JSON.parse(content) as Network;
    return Array.isArray(parsed.chains) ? { devnet: parsed.devnet === true, chains: parsed.chains } : fallback;
  } catch {
    return fallback;
  }
}

const NETWORK = readNetwork();

/** True when the service runs its local anvil devnet: every page shows a badge. */
export const IS_DEVNET = NETWORK.devnet;

/** The devnet's one name on every page (dashboard, hosted pages, banner, docs). */
export const devnetName = (chainId: number) => `Local devnet (chain ${chainId})`;

/** One name per chain on every page (dashboard, onboarding, checkout). */
export function chainName(chainId: number): string {
  if (IS_DEVNET) return devnetName(chainId);
  return PUBLIC_NAMES[chainId] ?? `Chain ${chainId}`;
}

export function isTestNetwork(chainId: number): boolean {
  return IS_DEVNET || TEST_NETWORKS.has(chainId);
}

/** The network picker of every form: only chains the service has an RPC for, "test network" where it is one. */
export const CHAIN_OPTIONS = NETWORK.chains.map(({ chain_id: id }) => ({
  value: String(id),
  label: IS_DEVNET ? chainName(id) : isTestNetwork(id) ? `${chainName(id)} (test network)` : chainName(id),
}));

/** The form default: the first chain the service runs. */
export const DEFAULT_CHAIN_ID = CHAIN_OPTIONS[0]?.value ?? '84532';
