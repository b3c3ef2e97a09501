import { useQuery } from '@tanstack/react-query';
import { useMemo, useState, type ReactNode } from 'react';
import { WagmiProvider } from 'wagmi';
import { PublicShell, StatePanel } from '../../components/PublicShell';
import { Button, Spinner } from '../../components/ui';
import { api, ApiError } from '../../lib/api';
import { useTitle } from '../../lib/router';
import type { SubscriptionAuthorization } from '../../lib/types';
import { chainFromSession, makeWagmiConfig } from '../../wallet/config';
import { safeUrl } from '../checkout/CheckoutPage';
import { authorizationKey } from './flow';
import { ManagePanel } from './ManagePanel';
import { SubscribePanel } from './SubscribePanel';
import { SubscriptionTerms } from './Terms';

/**
 * /subscribe/<token> (sign up) and /subscribe/<token>/manage (state, stop): the subscriber's hosted pages. The public
 * read is polled so activation, charges and a revocation the indexer saw show up without a reload.
 */
export function SubscribePage({ token, manage }: { token: string; manage: boolean }) {
  useTitle(manage ? 'Manage subscription' : 'Subscribe');
  const [subscribedHere, setSubscribedHere] = useState(false);
  const auth = useQuery({
    queryKey: authorizationKey(token),
    queryFn: () => api.get<SubscriptionAuthorization>(`/v1/subscriptions/authorize/${encodeURIComponent(token)}`),
    refetchInterval: (q) => (q.state.error instanceof ApiError && q.state.error.status === 404 ? false : 2_000),
    refetchIntervalInBackground: true,
    retry: (n, err) => !(err instanceof ApiError && err.status === 404) && n < 3,
  });
  if (auth.isPending) {
    return (
      <PublicShell promise="subscribe">
        <div className="panel panel-loading" aria-busy="true"><Spinner label="Loading subscription" /><p className="muted">Loading subscription…</p></div>
      </PublicShell>
    );
  }
  if (!auth.data) {
    const notFound = auth.error instanceof ApiError && auth.error.status === 404;
    return (
      <PublicShell promise="subscribe">
        {notFound ? (
          <StatePanel icon="search" title="Subscription not found"><p>This subscription link is not valid. Check that you opened the complete link, or ask the merchant for a new one.</p></StatePanel>
        ) : (
          <StatePanel icon="warning" title="We could not load this subscription" actions={<Button onClick={() => auth.refetch()}>Try again</Button>}>
            <p>{auth.error?.message ?? 'Something went wrong.'}</p>
          </StatePanel>
        )}
      </PublicShell>
    );
  }
  const a = auth.data;
  const cancel = safeUrl(a.cancel_url);
  const context = <>Subscribing to <strong>{a.merchant.name}</strong> via {a.platform.name}</>;
  if (a.state === 'expired') {
    return (
      <PublicShell context={context} promise="subscribe">
        <StatePanel icon="clock" title="This subscription link has expired" actions={cancel && <a className="btn btn-secondary btn-md" href={cancel}><span>Return to {a.merchant.name}</span></a>}>
          <p>The link to start this subscription closed before it was signed. Nothing was authorized and no money was taken. Ask {a.merchant.name} for a new link.</p>
        </StatePanel>
      </PublicShell>
    );
  }
  return (
    <PublicShell context={context} promise="subscribe" aside={<SubscriptionTerms terms={a} />}>
      <WalletScope auth={a}>
        {manage || (a.state !== 'incomplete' && !subscribedHere) ? (
          <ManagePanel auth={a} />
        ) : (
          <SubscribePanel auth={a} token={token} cancelUrl={cancel} onActivated={() => setSubscribedHere(true)} />
        )}
      </WalletScope>
    </PublicShell>
  );
}

function WalletScope({ auth, children }: { auth: SubscriptionAuthorization; children: ReactNode }) {
  const { chain_id, rpc_url, name } = auth.chain;
  const config = useMemo(() => makeWagmiConfig(chainFromSession({ chain_id, rpc_url, name, block_explorer_url: null })), [chain_id, rpc_url, name]);
  return <WagmiProvider config={config} reconnectOnMount>{children}</WagmiProvider>;
}
