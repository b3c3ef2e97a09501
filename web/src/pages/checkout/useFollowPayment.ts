import { useEffect, useRef, type Dispatch, type SetStateAction } from 'react';
import type { Hex, PublicClient } from 'viem';
import { PAID_STATES } from '../../lib/capture';
import type { CheckoutSession, Relay } from '../../lib/types';
import { walletErrorMessage } from '../../wallet/errors';
import type { Progress } from './progress';

type Args = {
  session: CheckoutSession;
  client: PublicClient;
  progress: Progress;
  setProgress: Dispatch<SetStateAction<Progress>>;
  onRelayFailed: (message: string) => void;
  relayFailed: (relay: Relay | null | undefined) => boolean;
};

/**
 * The live badge after the payment left the wallet: the service's relay (read from the polled session) until
 * it has a transaction hash, then the transaction to the required depth; the session's confirmed state wins.
 */
export function useFollowPayment({ session, client, progress, setProgress, onRelayFailed, relayFailed }: Args) {
  // Paid, or for a manual-capture order authorized (held by the router until the merchant captures).
  const serverConfirmed = session.state === 'completed' || PAID_STATES.includes(session.order.state);
  const required = session.chain.confirmations_required;
  const set = (p: Partial<Progress>) => setProgress((prev) => ({ ...prev, ...p }));

  useEffect(() => {
    if (serverConfirmed && progress.phase !== 'confirmed') set({ phase: 'confirmed', error: null, confirmations: Math.max(progress.confirmations, required) });
  });

  // The relay: its hash when the relayer has sent it, or the next method when the service gave up.
  const relay = session.gasless?.relay;
  useEffect(() => {
    if (!progress.relayId || !relay || relay.id !== progress.relayId || serverConfirmed) return;
    if (relayFailed(relay)) onRelayFailed(relay.error?.message ?? 'The relayer could not send your payment; no USDC left your wallet.');
    else if (relay.tx_hash && relay.tx_hash !== progress.payHash) set({ payHash: relay.tx_hash as Hex });
  });

  const following = useRef<Hex | null>(null);
  useEffect(() => {
    const hash = progress.payHash;
    if (!hash || following.current === hash || serverConfirmed) return;
    following.current = hash;
    let stopped = false;
    (async () => {
      try {
        const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 1_000, timeout: 15 * 60_000 });
        if (stopped) return;
        if (receipt.status !== 'success') return set({ phase: 'reverted', error: 'The payment transaction failed on-chain. No USDC left your wallet; you can try again.' });
        for (;;) {
          const n = Number((await client.getBlockNumber({ cacheTime: 0 })) - receipt.blockNumber + 1n);
          if (stopped) return;
          setProgress((prev) => (prev.phase === 'confirmed' ? prev : { ...prev, phase: 'confirming', confirmations: Math.min(n, required) }));
          if (n >= required) return;
          await new Promise((r) => setTimeout(r, 1_000));
        }
      } catch (err) {
        if (!stopped) set({ error: walletErrorMessage(err) });
      }
    })();
    return () => {
      stopped = true;
      following.current = null;
    };
    // `set` is left out on purpose: it only wraps setProgress, which never changes.
  }, [progress.payHash, client, serverConfirmed, required]);
}
