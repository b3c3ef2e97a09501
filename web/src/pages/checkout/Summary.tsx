import { formatBase, formatHuman } from '../../lib/money';
import { ChainName } from '../../components/ui';
import { isManual } from '../../lib/capture';
import type { CheckoutSession } from '../../lib/types';

/** Left column: who is paid, how much, and how the payment is split on-chain. All amounts from base units. */
export function OrderSummary({ session }: { session: CheckoutSession }) {
  const { order, merchant, platform } = session;
  const split = order.computed_split;
  const manual = isManual(order);
  return (
    <div className="summary">
      <p className="summary-merchant">
        <span className="merchant-avatar" aria-hidden="true">{initials(merchant.name)}</span>
        <span>
          <span className="summary-merchant-name">{merchant.name}</span>
          <span className="summary-sub">Order {order.order_no}</span>
        </span>
      </p>
      <p className="summary-label">{manual ? 'Amount to authorize' : 'Amount due'}</p>
      <p className="summary-amount" data-testid="checkout-amount">
        {formatHuman(order.amount)} <span className="summary-currency">{order.token}</span>
      </p>
      <table className="split-table" aria-label="Fee breakdown">
        <caption>{manual ? 'How your payment is split if captured in full' : 'How your payment is split'}</caption>
        <tbody>
          <tr>
            <th scope="row">Service fee <span className="muted">(Trisettle)</span></th>
            <td>{formatBase(split.service_fee)}</td>
          </tr>
          <tr>
            <th scope="row">Platform fee <span className="muted">({platform.name})</span></th>
            <td>{formatBase(split.platform_fee)}</td>
          </tr>
          <tr>
            <th scope="row">{merchant.name} receives</th>
            <td>{formatBase(split.merchant_gross)}</td>
          </tr>
          <tr className="split-sub">
            <th scope="row">of which held in reserve</th>
            <td>{formatBase(split.reserve_hold)}</td>
          </tr>
          <tr className="split-total">
            <th scope="row">Total</th>
            <td>{formatHuman(order.amount)} {order.token}</td>
          </tr>
        </tbody>
      </table>
      <p className="summary-note">
        Paid on <ChainName chainId={session.chain.chain_id} />. Fees come out of the total{feeNote(session)}
      </p>
    </div>
  );
}

/** What the buyer pays beyond the total: said only while there is something left to pay (after a gasless payment
 *  the offer is gone, and "the network fee in ETH" would be wrong). */
function feeNote(session: CheckoutSession): string {
  if (session.state !== 'open' || session.order.state !== 'pending_payment') return '.';
  return session.gasless?.enabled
    ? '; you pay nothing extra: the network fee is paid for you when you sign a gasless payment.'
    : '; you pay nothing extra apart from the network fee in ETH.';
}

function initials(name: string): string {
  const parts = name.trim().split(/\s+/).filter(Boolean);
  return ((parts[0]?.[0] ?? '') + (parts[1]?.[0] ?? '')).toUpperCase() || '•';
}
