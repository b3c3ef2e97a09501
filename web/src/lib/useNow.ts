import { createContext, useContext, useEffect, useState } from 'react';

/**
 * How far the chain's clock is ahead of this browser's, in ms (0 off the devnet). On the devnet the test clock moves
 * the chain's time (anvil's evm_increaseTime): deadlines, expiries and the dashboard's windows are decided on that
 * clock, so every "now" a page compares them with is the chain's (wall clock + offset), never Date.now() alone.
 */
const ChainOffset = createContext(0);
export const ChainOffsetProvider = ChainOffset.Provider;

/** The chain's "now" (ms), as of the last clock read: for comparisons that do not need to tick. */
export function useChainOffset(): number {
  return useContext(ChainOffset);
}

/** The chain's "now" in ms, ticking every `intervalMs`. */
export function useNow(intervalMs = 1_000): number {
  const offset = useContext(ChainOffset);
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const t = window.setInterval(() => setNow(Date.now()), intervalMs);
    return () => window.clearInterval(t);
  }, [intervalMs]);
  return now + offset;
}
