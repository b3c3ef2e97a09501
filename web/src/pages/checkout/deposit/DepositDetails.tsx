import { formatUnits, type Address } from 'viem';
import { Alert, CopyButton } from '../../../components/ui';
import { chainName } from '../../../lib/chains';
import { formatLocalDeadline, formatRemaining, shortHex } from '../../../lib/format';
import { formatBase, USDC_DECIMALS } from '../../../lib/money';
import { useNow } from '../../../lib/useNow';
import type { CheckoutSession } from '../../../lib/types';
import type { Deposit } from './deposit';
import { QrCode } from './QrCode';

/**
 * Step 2: where to send the USDC and how much is still due. The figures come from the polled session, so a
 * transfer that lands shows up here by itself; when the whole amount is in, the page moves to its paid panel.
 */
export function DepositDetails({ session, deposit, address }: { session: CheckoutSession; deposit: Deposit; address: Address }) {
  const now = useNow();
  const network = chainName(session.chain.chain_id);
  const token = session.order.token;
  const left = new Date(session.expires_at).getTime() - now;
  const inFull = deposit.due === 0n && deposit.received > 0n;
  return (
    <div className="deposit" data-testid="deposit-details">
      <Alert tone="warning" title={`Send only ${token} on ${network}`}>
        Send exactly {formatBase(deposit.due)} {token} on {network}; other tokens or networks may be lost.
      </Alert>
      <div className="deposit-target">
        {/* The QR holds the bare address, not an EIP-681 "ethereum:<token>@<chain>/transfer?..." link: exchanges'
            withdrawal screens and most wallets scan a plain address and reject or misread such a link, and the
            token, network and amount are written beside it for the payer to enter. */}
        <QrCode value={address} label={`QR code of the deposit address ${address}`} />
        <div className="deposit-address">
          <p className="summary-label" id="deposit-address-label">Deposit address</p>
          <p className="mono deposit-address-text" data-testid="deposit-address" aria-labelledby="deposit-address-label">{address}</p>
          <CopyButton value={address} label="Copy address" />
        </div>
      </div>
      <dl className="deposit-figures" aria-live="polite">
        <div>
          <dt>Token and network</dt>
          <dd>{token} on {network}</dd>
        </div>
        <div>
          <dt>Still due</dt>
          <dd>
            <strong className="tabular" data-testid="deposit-due">{formatBase(deposit.due)} {token}</strong>{' '}
            {deposit.due > 0n && <CopyButton value={formatUnits(deposit.due, USDC_DECIMALS)} label="Copy amount" />}
          </dd>
        </div>
        <div>
          <dt>Received so far</dt>
          <dd className="tabular" data-testid="deposit-received">{formatBase(deposit.received)} {token}</dd>
        </div>
        <div>
          <dt>Pay by</dt>
          <dd>{formatLocalDeadline(session.expires_at)} <span className="muted tabular">({left > 0 ? `${formatRemaining(left)} left` : 'passed'})</span></dd>
        </div>
        {deposit.refundAddress && (
          <div>
            <dt>Returns go to</dt>
            <dd className="mono" title={deposit.refundAddress}>{shortHex(deposit.refundAddress, 8, 6)}</dd>
          </div>
        )}
      </dl>
      <p className="muted deposit-note" data-testid="deposit-note">
        {inFull
          ? 'The whole amount has arrived; the payment is being completed. This page updates by itself.'
          : deposit.received > 0n
            ? `Part of the amount has arrived. Send the ${formatBase(deposit.due)} ${token} still due to the same address before the deadline; if the rest does not arrive in time, what was received goes back to the refund address.`
            : 'This page updates by itself when your transfer arrives. You can send it from an exchange or from any wallet.'}
      </p>
    </div>
  );
}
