import { useQuery } from '@tanstack/react-query';
import { useMemo, useState, type ReactNode } from 'react';
import { WagmiProvider } from 'wagmi';
import { PublicShell, StatePanel } from '../../components/PublicShell';
import { Button, Spinner } from '../../components/ui';
import { api, ApiError } from '../../lib/api';
import { useTitle } from '../../lib/router';
import { isManual, PAID_STATES } from '../../lib/capture';
import type { CheckoutSession } from '../../lib/types';
import { DonePanel } from './DonePanel';
import { chainFromSession, makeWagmiConfig } from '../../wallet/config';
import { PaymentPanel } from './PaymentPanel';
import { OrderSummary, type PaidWith } from './Summary';
import { depositOf } from './deposit/deposit';
import { formatBase } from '../../lib/money';

/** Only http(s) destinations: a session URL must never become a javascript: navigation. */
export function safeUrl(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const u = new URL(url, window.location.href);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.toString() : null;
  } catch {
    return null;
  }
}

/**
 * /checkout/<session_token>: the buyer's hosted page. The session is polled every 2 s so the badge and the
 * expired/completed states follow the service, not only this tab.
 */
export function CheckoutPage({ token }: { token: string }) {
  useTitle('Checkout');
  const session = useQuery({
    queryKey: ['checkout', token],
    queryFn: () => api.get<CheckoutSession>(`/v1/checkout/sessions/${encodeURIComponent(token)}`),
    refetchInterval: (q) => (q.state.data?.state === 'expired' || (q.state.error instanceof ApiError && q.state.error.status === 404) ? false : 2_000),
    refetchIntervalInBackground: true,
    retry: (n, err) => !(err instanceof ApiError && err.status === 404) && n < 3,
  });
  // How this tab paid (set once a payment is on its way): the summary's note about network fees follows it.
  const [paidWith, setPaidWith] = useState<PaidWith | null>(null);
  const started = paidWith !== null;

  if (session.isPending) {
    return (
      <PublicShell>
        <div className="panel panel-loading" aria-busy="true">
          <Spinner label="Loading checkout" />
          <p className="muted">Loading checkout…</p>
        </div>
      </PublicShell>
    );
  }
  if (!session.data) {
    const notFound = session.error instanceof ApiError && session.error.status === 404;
    return (
      <PublicShell>
        {notFound ? (
          <StatePanel icon="search" title="Checkout not found">
            <p>This payment link is not valid. Check that you opened the complete link, or go back to the merchant and start again.</p>
          </StatePanel>
        ) : (
          <StatePanel icon="warning" title="We could not load this checkout" actions={<Button onClick={() => session.refetch()}>Try again</Button>}>
            <p>{session.error?.message ?? 'Something went wrong.'}</p>
          </StatePanel>
        )}
      </PublicShell>
    );
  }
  const s = session.data;
  const cancel = safeUrl(s.cancel_url);
  const success = safeUrl(s.success_url);
  const context = <>Paying <strong>{s.merchant.name}</strong> via {s.platform.name}</>;
  const done = s.state === 'completed' || PAID_STATES.includes(s.order.state);
  const promise = isManual(s.order) ? 'authorize' : 'pay';
  // Paid in part by plain transfers (issue 38): an expired order returns what arrived.
  const received = depositOf(s)?.received ?? 0n;

  if (s.state === 'expired' && !started) {
    return (
      <PublicShell context={context} promise={promise}>
        <StatePanel icon="clock" title="This checkout has expired" actions={cancel && <a className="btn btn-secondary btn-md" href={cancel}><span>Return to {s.merchant.name}</span></a>}>
          <p>
            The payment window for order {s.order.order_no} closed before it was paid.{' '}
            {received > 0n ? `The ${formatBase(received)} ${s.order.token} that reached its deposit address goes back to the refund address you chose.` : 'No money was taken.'}{' '}
            Go back to {s.merchant.name} to start a new checkout.
          </p>
        </StatePanel>
      </PublicShell>
    );
  }
  if (done && !started) {
    return (
      <PublicShell context={context} promise={promise}>
        <DonePanel session={s} successUrl={success} />
      </PublicShell>
    );
  }
  return (
    <PublicShell context={context} promise={promise} aside={<OrderSummary session={s} paidWith={paidWith} />}>
      <WalletScope session={s}>
        <PaymentPanel session={s} token={token} onStart={setPaidWith} successUrl={success} cancelUrl={cancel} />
      </WalletScope>
    </PublicShell>
  );
}

/** The wagmi config depends on the session's chain (its RPC), so it is made once the session is known. */
function WalletScope({ session, children }: { session: CheckoutSession; children: ReactNode }) {
  const { chain_id, rpc_url, name, block_explorer_url } = session.chain;
  const config = useMemo(() => makeWagmiConfig(chainFromSession({ chain_id, rpc_url, name, block_explorer_url })), [chain_id, rpc_url, name, block_explorer_url]);
  return (
    <WagmiProvider config={config} reconnectOnMount>
      {children}
    </WagmiProvider>
  );
}

