import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useMemo, useState } from 'react';
import { createPublicClient, http, type Address, type PublicClient } from 'viem';
import { useConfig } from 'wagmi';
import { switchChain } from 'wagmi/actions';
import { ApiError } from '../../lib/api';
import type { Subscription, SubscriptionAuthorization } from '../../lib/types';
import { chainFromSession } from '../../wallet/config';
import { walletErrorMessage } from '../../wallet/errors';
import { allowanceCovered, authorizationKey, subscribe, type AllowanceMethod, type SubscribeStep } from './flow';


/** A public client on the subscription's chain (reads and receipts never depend on the wallet's RPC). */
export function useChainClient(auth: SubscriptionAuthorization) {
  const chain = useMemo(() => chainFromSession(auth.chain), [auth.chain]);
  const client = useMemo(() => createPublicClient({ chain, transport: http(chain.rpcUrls.default.http[0]) }) as PublicClient, [chain]);
  return { chain, client };
}

/** What the service says, in words: its message for a 4xx, a sentence for anything else. */
export function subscribeErrorMessage(err: unknown): string {
  if (err instanceof ApiError) {
    if (err.status === 404) return 'This subscription link is not valid any more.';
    if (err.status === 409) return 'This subscription was already started or has expired. Reload the page to see where it stands.';
    if (err.status === 429) return 'Too many attempts. Wait a minute and try again.';
    return err.status < 500 ? err.message : 'Trisettle could not activate the subscription right now. Nothing was charged; try again.';
  }
  return walletErrorMessage(err);
}

/**
 * The subscriber's one authorization: the allowance (permit first where the token has one, else approve; the payer
 * can switch), then the SpendPermission signature, posted to the service, which activates and charges period one.
 */
export function useSubscribe(auth: SubscriptionAuthorization, token: string, account: Address | undefined, onActivated: () => void) {
  const config = useConfig();
  const queryClient = useQueryClient();
  const { chain, client } = useChainClient(auth);
  const permitOffered = auth.allowance.permit !== null;
  const [method, setMethod] = useState<AllowanceMethod>(permitOffered ? 'permit' : 'approve');
  const [step, setStep] = useState<SubscribeStep | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<Subscription | null>(null);
  const covered = useQuery({
    queryKey: ['subscription-allowance', token, account],
    queryFn: () => allowanceCovered(client, auth, account!),
    enabled: Boolean(account),
  });

  const run = useCallback(async () => {
    if (!account) return;
    setError(null);
    try {
      const sub = await subscribe({ config, client, account, chainId: chain.id, auth, token, onStep: setStep }, method, covered.data === true);
      setDone(sub);
      onActivated();
      await queryClient.invalidateQueries({ queryKey: authorizationKey(token) });
    } catch (err) {
      setError(subscribeErrorMessage(err));
      void covered.refetch();
    } finally {
      setStep(null);
    }
  }, [account, auth, chain.id, client, config, covered, method, onActivated, queryClient, token]);

  const switchNetwork = useCallback(async () => {
    setError(null);
    try {
      await switchChain(config, { chainId: chain.id });
    } catch (err) {
      setError(walletErrorMessage(err));
    }
  }, [chain.id, config]);

  const other: AllowanceMethod | null = permitOffered ? (method === 'permit' ? 'approve' : 'permit') : null;
  return { chain, method, other, setMethod, step, error, done, covered, run, switchNetwork };
}
