import { devnetName, IS_DEVNET } from '../lib/chains';

/**
 * The mark every dashboard and hosted page carries while the service runs its local devnet, so a test
 * payment never looks like production. Renders nothing elsewhere.
 */
export function DevnetBadge({ chainId = 84532 }: { chainId?: number }) {
  if (!IS_DEVNET) return null;
  return (
    <span className="devnet-badge" data-testid="devnet-badge" title="Test money on a local anvil chain: nothing here is real">
      <span className="devnet-dot" aria-hidden="true" />
      {devnetName(chainId)}
    </span>
  );
}
