import { useState } from 'react';
import { isAddressEqual, type Address } from 'viem';
import { useConfig, useConnection } from 'wagmi';
import { switchChain } from 'wagmi/actions';
import { Alert, Badge, Button, DescriptionList, Hash } from '../../components/ui';
import { chainName } from '../../lib/chains';
import { formatDate, humanize } from '../../lib/format';
import { formatHuman } from '../../lib/money';
import type { SubscriptionAuthorization } from '../../lib/types';
import { ConnectedAccount, ConnectWallet } from '../../wallet/ConnectWallet';
import { walletErrorMessage } from '../../wallet/errors';
import { AllowanceSection } from './AllowanceSection';
import { revokePermission } from './revoke';
import { intervalText } from './Terms';
import { useChainClient } from './useSubscribe';

const REASON: Record<string, string> = {
  payer_revoked: 'You stopped it from your wallet.',
  canceled_by_platform: 'The merchant canceled it.',
  payment_failed: 'It was canceled after charges kept failing.',
  ended: 'It reached its last period.',
};

/** /subscribe/<token>/manage: where the subscription stands, and "Stop subscription" (revoke from the payer's wallet, on chain). */
export function ManagePanel({ auth }: { auth: SubscriptionAuthorization }) {
  const a = auth.authorized;
  const canceled = auth.state === 'canceled';
  const per = `${formatHuman(auth.amount)} ${auth.token.symbol}`;
  return (
    <div className="panel pay-panel">
      <div className="panel-head">
        <h1>Your subscription</h1>
        <p className="muted">{per} every {intervalText(auth)} to {auth.merchant.name}</p>
      </div>
      <p>Status: <span data-testid="subscription-state"><Badge state={auth.state}>{humanize(auth.state)}</Badge></span></p>
      {!a ? (
        <Alert tone="info" title="Not started yet">This subscription has not been signed yet, so nothing can be charged. Open the subscription link to start it.</Alert>
      ) : (
        <>
          <DescriptionList
            items={[
              ['Paid from', <Hash key="p" value={a.payer ?? a.permission.payer} />],
              ['Charges so far', String(a.periods_charged)],
              ...(canceled ? [] : ([['Current period ends', formatDate(a.current_period_end)], [auth.state === 'past_due' ? 'Next attempt' : 'Next charge', a.cancel_at_period_end ? 'None: ends with this period' : formatDate(a.next_charge_at)]] as [string, string][])),
              ...(canceled ? ([['Stopped', formatDate(a.canceled_at)], ['Why', REASON[a.cancel_reason ?? ''] ?? humanize(a.cancel_reason ?? '—')]] as [string, string][]) : []),
            ]}
          />
          <Charges auth={auth} charges={a.charges} />
          {canceled ? (
            <Alert tone="success" title="Subscription stopped">No further charges can be taken. {REASON[a.cancel_reason ?? ''] ?? ''}</Alert>
          ) : (
            <>
              <AllowanceSection auth={auth} />
              <StopSubscription auth={auth} permission={a.permission} />
            </>
          )}
        </>
      )}
    </div>
  );
}

type Charge = NonNullable<SubscriptionAuthorization['authorized']>['charges'][number];
const CHARGE_STATE: Record<string, string> = { pending_payment: 'Processing', confirmed: 'Paid', failed: 'Failed (nothing taken)', partially_refunded: 'Partly refunded', refunded: 'Refunded' };

/**
 * The charges so far (the public read's newest 24): period, amount, date, state and the transaction on the explorer.
 * The period is the API's subscription_period as it is (0 = the first period), as on the orders and in webhooks.
 */
function Charges({ auth, charges }: { auth: SubscriptionAuthorization; charges: Charge[] }) {
  const explorer = auth.chain.block_explorer_url?.replace(/\/$/, '') ?? null;
  if (charges.length === 0) return <p className="muted">No charge yet.</p>;
  return (
    <section aria-labelledby="charges-title" className="sub-charges">
      <h2 id="charges-title">Charges</h2>
      <div className="table-scroll">
        <table className="table" aria-label="Charges" data-testid="manage-charges">
          <thead><tr><th scope="col">Period</th><th scope="col" className="num">Amount</th><th scope="col">Date</th><th scope="col">Status</th><th scope="col">Tx</th></tr></thead>
          <tbody>
            {charges.map((c, i) => (
              <tr key={`${c.period}-${c.created_at}-${i}`}>
                <td>{c.period ?? '—'}</td>
                <td className="num nowrap">{formatHuman(c.amount)} {auth.token.symbol}</td>
                <td className="muted">{formatDate(c.paid_at ?? c.created_at)}</td>
                <td><Badge state={c.state}>{CHARGE_STATE[c.state] ?? humanize(c.state)}</Badge></td>
                <td>{c.tx_hash ? <Hash value={c.tx_hash} copy={false} href={explorer ? `${explorer}/tx/${c.tx_hash}` : null} /> : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

function StopSubscription({ auth, permission }: { auth: SubscriptionAuthorization; permission: NonNullable<SubscriptionAuthorization['authorized']>['permission'] }) {
  const config = useConfig();
  const { address, chainId, isConnected } = useConnection();
  const { chain, client } = useChainClient(auth);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [revokedTx, setRevokedTx] = useState<string | null>(null);
  const payer = permission.payer as Address;
  const stop = async () => {
    setError(null);
    setBusy(true);
    try {
      if (chainId !== chain.id) await switchChain(config, { chainId: chain.id });
      setRevokedTx(await revokePermission(config, client, chain.id, auth.manager_address as Address, address!, permission));
    } catch (err) {
      setError(/Revoked/.test(String((err as Error)?.message)) ? 'This subscription is already stopped on chain.' : walletErrorMessage(err));
    } finally {
      setBusy(false);
    }
  };
  if (revokedTx) {
    return <Alert tone="info" title="Stopped on chain">Your wallet revoked the permission; no charge can be taken any more. This page shows it canceled as soon as Trisettle sees the transaction.</Alert>;
  }
  return (
    <section aria-labelledby="stop-title" className="stop-subscription">
      <h2 id="stop-title">Stop subscription</h2>
      <p className="muted">Your wallet revokes the permission directly on {chainName(auth.chain.chain_id)}; it takes effect at once and needs nobody else. It costs a small network fee.</p>
      {!isConnected ? (
        <ConnectWallet intro="Connect the wallet that pays this subscription." />
      ) : (
        <div className="pay-actions">
          <ConnectedAccount />
          {address && !isAddressEqual(address, payer) ? (
            <Alert tone="error" title="Wrong wallet">Only the wallet that signed this subscription can stop it. Switch to that account in your wallet.</Alert>
          ) : (
            <Button variant="danger" size="lg" block loading={busy} onClick={stop}>{busy ? 'Confirm in your wallet…' : 'Stop subscription'}</Button>
          )}
        </div>
      )}
      <div className="slot" data-testid="manage-error">{error && <Alert tone="error">{error}</Alert>}</div>
    </section>
  );
}
