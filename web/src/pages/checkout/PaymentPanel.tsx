import { useEffect, useMemo, useState } from 'react';
import { isAddressEqual, type Address } from 'viem';
import { useConnection } from 'wagmi';
import { Alert, Button } from '../../components/ui';
import { shortHex } from '../../lib/format';
import { chainName } from '../../lib/chains';
import { formatBase, formatHuman } from '../../lib/money';
import type { CheckoutSession } from '../../lib/types';
import { chainFromSession } from '../../wallet/config';
import { ConnectedAccount, ConnectWallet } from '../../wallet/ConnectWallet';
import { useNow } from '../../lib/useNow';
import { isManual } from '../../lib/capture';
import { formatLocalDeadline } from '../../lib/format';
import { AuthorizeNotice } from './AuthorizeNotice';
import { depositOf, depositOffered } from './deposit/deposit';
import { DepositPay } from './deposit/DepositPay';
import { PaymentStatus } from './PaymentStatus';
import { PayActions } from './PayActions';
import type { PaidWith } from './Summary';
import { usePayment } from './usePayment';

const REDIRECT_SECONDS = 3;

export function PaymentPanel({ session, token, onStart, successUrl, cancelUrl }: { session: CheckoutSession; token: string; onStart: (method: PaidWith) => void; successUrl: string | null; cancelUrl: string | null }) {
  const { address, chainId, isConnected } = useConnection();
  const chain = useMemo(() => chainFromSession(session.chain), [session.chain]);
  const pay = usePayment(session, chain, address, token);
  const { phase, error } = pay.progress;
  const now = useNow();
  const expiresIn = Math.max(0, Math.floor((new Date(session.expires_at).getTime() - now) / 1000));
  const busy = ['switching', 'signing', 'confirm_in_wallet', 'approve_pending', 'relaying', 'batch_pending'].includes(phase);
  const inFlight = ['submitted', 'confirming', 'confirmed'].includes(phase);
  const relayed = pay.progress.relayId !== null;
  useEffect(() => {
    if (inFlight) onStart(relayed ? 'gasless' : 'wallet');
  }, [inFlight, relayed, onStart]);

  const wrongNetwork = isConnected && chainId !== chain.id;
  const payer = session.payer_address as Address | null;
  const wrongPayer = Boolean(payer && address && !isAddressEqual(payer, address));
  const expired = session.state === 'expired' || expiresIn === 0;
  // Past expires_at the service still waits for the network: a payment sent in time may be confirming.
  const awaitingNetwork = expired && session.state === 'open';
  const amountText = `${formatHuman(session.order.amount)} ${session.order.token}`;
  const manual = isManual(session.order);
  // A plain transfer to the order's deposit address (issue 38): chosen here, or already under way (reload).
  const deposit = depositOf(session);
  const offered = depositOffered(session);
  const [byTransfer, setByTransfer] = useState(() => offered && Boolean(deposit?.depositAddress || deposit?.received));
  const showTransfer = offered && byTransfer && !inFlight && phase !== 'confirmed';

  return (
    <div className="panel pay-panel">
      <div className="panel-head">
        <h1>{phase === 'confirmed' ? (manual ? 'Authorization complete' : 'Payment complete') : inFlight ? 'Payment in progress' : showTransfer ? 'Pay by transfer' : 'Pay with your wallet'}</h1>
        {phase !== 'confirmed' && <p className="muted">
          {inFlight ? 'Your payment is on its way.' : awaitingNetwork ? 'Expired, awaiting the network: a payment already sent will still complete.' : expired ? 'This checkout has expired.' : <>Expires in <span className="tabular">{formatCountdown(expiresIn)}</span></>}
        </p>}
      </div>

      {manual && !inFlight && phase !== 'confirmed' && <AuthorizeNotice session={session} amountText={amountText} />}

      {payer && !inFlight && (
        <Alert tone="info" title="Reserved for one wallet">
          Only <span className="mono">{shortHex(payer, 8, 6)}</span> can pay this order.
        </Alert>
      )}

      {phase === 'confirmed' ? (
        <Confirmed session={session} successUrl={successUrl} />
      ) : inFlight ? (
        <p className="in-flight-note">
          {relayed ? 'Trisettle\'s relayer sent your signed payment; you pay no network fee.' : 'Your wallet sent the payment.'} We are waiting for the network to confirm it ({session.chain.confirmations_required}{' '}
          {session.chain.confirmations_required === 1 ? 'block' : 'blocks'}); this page updates by itself and takes you back to {session.merchant.name} when it is done.
        </p>
      ) : showTransfer ? (
        <DepositPay session={session} sessionToken={token} />
      ) : !isConnected ? (
        <ConnectWallet intro="Connect the wallet you will pay from." />
      ) : (
        <div className="pay-actions">
          <ConnectedAccount />
          {wrongPayer ? (
            <Alert tone="error" title="Wrong wallet">
              This payment can only be made from {shortHex(payer!, 8, 6)}. Switch to that account in your wallet.
            </Alert>
          ) : wrongNetwork ? (
            <div className="network-check">
              <Alert tone="warning" title="Wrong network">
                Your wallet is on another network. This payment is made on {chainName(session.chain.chain_id)}.
              </Alert>
              <Button variant="primary" size="lg" block loading={phase === 'switching'} onClick={pay.switchNetwork}>
                Switch to {chainName(session.chain.chain_id)}
              </Button>
            </div>
          ) : pay.funds.isPending ? (
            <div className="funds-loading" aria-busy="true">Checking your USDC balance…</div>
          ) : pay.funds.isError ? (
            <Alert tone="error" title="Could not read your balance">
              The network did not answer. <button type="button" className="link-btn" onClick={() => pay.funds.refetch()}>Try again</button>
            </Alert>
          ) : pay.insufficient ? (
            <Alert tone="error" title="Not enough USDC">
              This wallet holds {formatBase(pay.funds.data?.balance ?? 0n)} USDC; this payment needs {amountText}.
            </Alert>
          ) : !pay.methodsReady ? (
            <div className="funds-loading" aria-busy="true">Checking what your wallet supports…</div>
          ) : (
            <PayActions pay={pay} amountText={amountText} verb={manual ? 'Authorize' : 'Pay'} disabled={busy || expired} />
          )}
        </div>
      )}

      {offered && !inFlight && phase !== 'confirmed' && !(showTransfer && deposit?.received) && (
        <div className="pay-other">
          {showTransfer ? (
            <button type="button" className="link-btn" onClick={() => setByTransfer(false)}>Pay from a connected wallet instead</button>
          ) : (
            <>
              <p className="pay-other-label">No wallet to connect here? Send USDC from an exchange or any wallet.</p>
              <Button size="lg" block onClick={() => setByTransfer(true)}>Pay by plain transfer</Button>
            </>
          )}
        </div>
      )}

      <PaymentStatus doneLabel={manual ? 'Authorized' : 'Confirmed'} phase={phase} confirmations={pay.progress.confirmations} required={session.chain.confirmations_required} hash={pay.progress.payHash} explorer={session.chain.block_explorer_url} />
      <div className="slot" data-testid="payment-error">
        {error && <Alert tone="error">{error}</Alert>}
      </div>
      {cancelUrl && phase !== 'confirmed' && !inFlight && (
        <p className="cancel-row">
          <a href={cancelUrl}>Cancel and return to {session.merchant.name}</a>
        </p>
      )}
    </div>
  );
}

function Confirmed({ session, successUrl }: { session: CheckoutSession; successUrl: string | null }) {
  const [left, setLeft] = useState(REDIRECT_SECONDS);
  useEffect(() => {
    if (!successUrl) return;
    if (left <= 0) {
      window.location.assign(successUrl);
      return;
    }
    const t = window.setTimeout(() => setLeft((n) => n - 1), 1_000);
    return () => window.clearTimeout(t);
  }, [left, successUrl]);
  return (
    <div className="confirmed">
      <div className="confirmed-icon" aria-hidden="true">✓</div>
      {isManual(session.order) ? (
        <>
          <p className="muted">
            {formatHuman(session.order.amount)} {session.order.token} is held for {session.merchant.name}. You are charged when they capture it, by{' '}
            {formatLocalDeadline(session.order.capture_before)}; anything not captured comes back to your wallet automatically.
          </p>
        </>
      ) : (
        <p className="muted" data-testid="merchant-receives">{merchantReceives(session)}</p>
      )}
      {successUrl && (
        <>
          <p className="muted">Returning you to {session.merchant.name} in {Math.max(left, 0)} s…</p>
          <a className="btn btn-primary btn-lg btn-block" href={successUrl}><span>Return to {session.merchant.name}</span></a>
        </>
      )}
    </div>
  );
}

/** What the merchant gets out of the buyer's payment: the amount after fees, and the part of it held in reserve. */
function merchantReceives({ merchant, order }: CheckoutSession): string {
  const { merchant_gross: net, reserve_hold: reserve } = order.computed_split;
  const paid = `You paid ${formatHuman(order.amount)} ${order.token}; ${merchant.name} receives ${formatBase(net)} ${order.token} of it after fees`;
  return BigInt(reserve || '0') > 0n ? `${paid}, ${formatBase(reserve)} of which stays in reserve for a while before it is paid out.` : `${paid}.`;
}

function formatCountdown(total: number): string {
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return h > 0 ? `${h} h ${String(m).padStart(2, '0')} min` : `${m}:${String(s).padStart(2, '0')}`;
}
