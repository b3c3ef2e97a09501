import type { ReactNode } from 'react';
import { IS_DEVNET } from '../../../lib/chains';
import { chainDate } from '../../../lib/dx-types';
import { ChainOffsetProvider, useChainOffset } from '../../../lib/useNow';
import { useChainClock } from '../balances/TestClock';
import { chainClockText } from './chain-clock-text';

/** Below this the chain and the browser agree (a block a second, network latency): no offset, no note. */
const SAME_CLOCK_MS = 120_000;

/**
 * On the devnet, every "now" under it is the chain's: the offset of the last clock read (the chain mines a block a
 * second, so its head time is its clock). Elsewhere, or while the clock is unread, the offset is 0.
 */
export function ChainClockProvider({ children }: { children: ReactNode }) {
  const clock = useChainClock(IS_DEVNET);
  const ahead = clock.data ? chainDate(clock.data.chain_time).getTime() - clock.dataUpdatedAt : 0;
  return <ChainOffsetProvider value={Math.abs(ahead) < SAME_CLOCK_MS ? 0 : ahead}>{children}</ChainOffsetProvider>;
}

/** "Chain clock +40 d": beside the devnet badge once the test clock moved, so moved deadlines explain themselves. */
export function ChainClockNote() {
  const offset = useChainOffset();
  if (!offset) return null;
  return <span className="chain-clock-note" data-testid="chain-clock-note" title="The devnet chain's clock was moved: deadlines, expiries and windows follow it">Chain clock {chainClockText(offset)}</span>;
}
