import { formatBase, formatHuman } from '../../lib/money';
import { ChainName } from '../../components/ui';
import { isManual } from '../../lib/capture';
import type { CheckoutSession } from '../../lib/types';
import { depositOf } from './deposit/deposit';

/** How this tab's payment went out: signed for the relayer (gasless) or sent from the wallet (it paid the gas). */
export type PaidWith = 'gasless' | 'wallet';

/** The platform's choice per session: the fee lines (the default) or the price alone. Optional until every service sends it. */
export type FeeDisplay = 'itemized' | 'total_only';
export const feeDisplayOf = (session: CheckoutSession): FeeDisplay =>
  (session as CheckoutSession & { fee_display?: FeeDisplay }).fee_display ?? 'itemized';

/** Left column: who is paid, how much, and (itemized) how the payment is split on-chain. All amounts from base units. */
export function OrderSummary({ session, paidWith = null }: { session: CheckoutSession; paidWith?: PaidWith | null }) {
  const { order, merchant } = session;
  const manual = isManual(order);
  const itemized = feeDisplayOf(session) === 'itemized';
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
      {itemized && <FeeBreakdown session={session} />}
      <p className="summary-note">
        Paid on <ChainName chainId={session.chain.chain_id} />.{itemized ? ' Fees come out of the total' : ' The price includes every fee'}{feeNote(session, paidWith)}
      </p>
    </div>
  );
}

/** The itemized fee lines: service fee, platform fee, what the merchant receives and the reserve within it. */
function FeeBreakdown({ session }: { session: CheckoutSession }) {
  const { order, merchant, platform } = session;
  const split = order.computed_split;
  return (
    <table className="split-table" aria-label="Fee breakdown">
      <caption>{isManual(order) ? 'How your payment is split if captured in full' : 'How your payment is split'}</caption>
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
  );
}

/** What the buyer pays beyond the total: once this tab paid, what the method it used cost (a gasless payment paid no
 *  ETH); before, what each offered method would; nothing for a payment made elsewhere. */
function feeNote(session: CheckoutSession, paidWith: PaidWith | null): string {
  if (paidWith === 'gasless') return '; paid gaslessly, it cost you no ETH.';
  if (paidWith === 'wallet') return '; the network fee was paid in ETH from your wallet.';
  if (session.state !== 'open' || session.order.state !== 'pending_payment') return '.';
  if (depositOf(session)?.depositAddress) return '; paying by plain transfer, you pay only the network fee of your transfer where you send it from.';
  return session.gasless?.enabled
    ? '; you pay nothing extra: the network fee is paid for you when you sign a gasless payment.'
    : '; you pay nothing extra apart from the network fee in ETH.';
}

function initials(name: string): string {
  const parts = name.trim().split(/\s+/).filter(Boolean);
  return ((parts[0]?.[0] ?? '') + (parts[1]?.[0] ?? '')).toUpperCase() || '•';
}
