import { useEffect, useState } from 'react';
import { isAddressEqual, type Address } from 'viem';
import { useConnection } from 'wagmi';
import { Alert, Button } from '../../components/ui';
import { chainName } from '../../lib/chains';
import { formatDate, shortHex } from '../../lib/format';
import { formatBase, formatHuman } from '../../lib/money';
import type { SubscriptionAuthorization } from '../../lib/types';
import { ConnectedAccount, ConnectWallet } from '../../wallet/ConnectWallet';
import { safeUrl } from '../checkout/CheckoutPage';
import type { SubscribeStep } from './flow';
import { intervalText } from './Terms';
import { useSubscribe } from './useSubscribe';

const STEP_LABEL: Record<SubscribeStep, string> = {
  approving: 'Confirm the approval in your wallet…',
  approve_pending: 'Approving…',
  signing_permit: 'Sign the permit in your wallet…',
  signing: 'Sign the subscription in your wallet…',
  activating: 'Starting your subscription…',
};

/** Connect → allowance (permit or approve) → sign the spend permission → active, with the next charge time. */
export function SubscribePanel({ auth, token, cancelUrl, onActivated }: { auth: SubscriptionAuthorization; token: string; cancelUrl: string | null; onActivated: () => void }) {
  const { address, chainId, isConnected } = useConnection();
  const sub = useSubscribe(auth, token, address, onActivated);
  const per = `${formatHuman(auth.amount)} ${auth.token.symbol}`;
  const payer = auth.payer_address as Address | null;
  const wrongPayer = Boolean(payer && address && !isAddressEqual(payer, address));
  const wrongNetwork = isConnected && chainId !== sub.chain.id;
  const allowance = formatBase(auth.allowance.amount);

  if (sub.done) return <Activated auth={auth} nextCharge={sub.done.next_charge_at ?? sub.done.current_period_end} successUrl={safeUrl(auth.success_url)} />;
  return (
    <div className="panel pay-panel">
      <div className="panel-head">
        <h1>Subscribe with your wallet</h1>
        <p className="muted">{per} every {intervalText(auth)}. Link expires {formatDate(auth.expires_at)}.</p>
      </div>
      {payer && (
        <Alert tone="info" title="Reserved for one wallet">Only <span className="mono">{shortHex(payer, 8, 6)}</span> can start this subscription.</Alert>
      )}
      {!isConnected ? (
        <ConnectWallet intro="Connect the wallet the subscription will be paid from." />
      ) : (
        <div className="pay-actions">
          <ConnectedAccount />
          {wrongPayer ? (
            <Alert tone="error" title="Wrong wallet">This subscription can only be started from {shortHex(payer!, 8, 6)}. Switch to that account in your wallet.</Alert>
          ) : wrongNetwork ? (
            <div className="network-check">
              <Alert tone="warning" title="Wrong network">Your wallet is on another network. This subscription is paid on {chainName(auth.chain.chain_id)}.</Alert>
              <Button variant="primary" size="lg" block onClick={sub.switchNetwork}>Switch to {chainName(auth.chain.chain_id)}</Button>
            </div>
          ) : sub.covered.isPending ? (
            <div className="funds-loading" aria-busy="true">Checking your USDC allowance…</div>
          ) : (
            <div data-method={sub.covered.data ? 'allowed' : sub.method}>
              <ol className="pay-steps">
                {sub.covered.data ? (
                  <li className="pay-step-done">USDC allowance in place</li>
                ) : (
                  <li className={sub.step === null || sub.step.startsWith('approv') || sub.step === 'signing_permit' ? 'pay-step-current' : 'pay-step-done'}>
                    <span>
                      {sub.method === 'permit' ? 'Sign a permit' : 'Approve USDC'}{' '}
                      <span className="pay-step-note">lets the subscription contract take up to {allowance} USDC in total ({auth.allowance.periods_covered} periods), at most {per} per period</span>
                    </span>
                  </li>
                )}
                <li>Sign the subscription <span className="pay-step-note">no network fee</span></li>
              </ol>
              <Button variant="primary" size="lg" block loading={sub.step !== null} onClick={sub.run}>
                {sub.step ? STEP_LABEL[sub.step] : `Subscribe for ${per} per ${intervalText(auth)}`}
              </Button>
              {sub.other && !sub.covered.data && (
                <button type="button" className="link-btn permit-link" disabled={sub.step !== null} onClick={() => sub.setMethod(sub.other!)}>
                  {sub.other === 'approve' ? 'Or approve with a transaction instead' : 'Or sign a permit instead (no transaction)'}
                </button>
              )}
            </div>
          )}
        </div>
      )}
      <div className="slot" data-testid="subscribe-error">{sub.error && <Alert tone="error">{sub.error}</Alert>}</div>
      {cancelUrl && <p className="cancel-row"><a href={cancelUrl}>Cancel and return to {auth.merchant.name}</a></p>}
    </div>
  );
}

function Activated({ auth, nextCharge, successUrl }: { auth: SubscriptionAuthorization; nextCharge: string | null; successUrl: string | null }) {
  const [left, setLeft] = useState(3);
  useEffect(() => {
    if (!successUrl) return;
    if (left <= 0) return window.location.assign(successUrl);
    const t = window.setTimeout(() => setLeft((n) => n - 1), 1_000);
    return () => window.clearTimeout(t);
  }, [left, successUrl]);
  return (
    <div className="panel pay-panel confirmed" role="status">
      <div className="confirmed-icon" aria-hidden="true">✓</div>
      <h2>Subscription active</h2>
      <p className="muted">The first charge of {formatHuman(auth.amount)} {auth.token.symbol} is on its way to {auth.merchant.name}. Next charge: <span data-testid="next-charge">{formatDate(nextCharge)}</span>.</p>
      <p className="muted">You can stop it at any time from <a href={`${window.location.pathname.replace(/\/+$/, '')}/manage`}>the management page</a>.</p>
      {successUrl && (
        <>
          <p className="muted">Returning you to {auth.merchant.name} in {Math.max(left, 0)} s…</p>
          <a className="btn btn-primary btn-lg btn-block" href={successUrl}><span>Return to {auth.merchant.name}</span></a>
        </>
      )}
    </div>
  );
}
