import { formatBase, formatHuman } from '../../lib/money';
import { formatDate } from '../../lib/format';
import type { SubscriptionAuthorization } from '../../lib/types';
import './subscribe.css';

type Terms = Pick<SubscriptionAuthorization, 'amount' | 'interval' | 'interval_count' | 'max_periods' | 'computed_split' | 'merchant' | 'platform' | 'token' | 'typed_data'>;

/** "month", "3 months". */
export const intervalText = (t: Pick<Terms, 'interval' | 'interval_count'>) => (t.interval_count === 1 ? t.interval : `${t.interval_count} ${t.interval}s`);

/** The end of the permission window, or null when it runs until stopped. */
export function endText(t: Terms): string | null {
  if (t.max_periods === null) return null;
  const m = t.typed_data.message as { end?: number | string };
  return `after ${t.max_periods} ${t.max_periods === 1 ? 'charge' : 'charges'} (${formatDate(new Date(Number(m.end) * 1000).toISOString())})`;
}

/** Left column: who is paid, how much per period, how each charge is split, and the payer's exposure. */
export function SubscriptionTerms({ terms }: { terms: Terms }) {
  const split = terms.computed_split;
  const per = `${formatHuman(terms.amount)} ${terms.token.symbol}`;
  const end = endText(terms);
  return (
    <div className="summary">
      <p className="summary-merchant">
        <span className="merchant-avatar" aria-hidden="true">{terms.merchant.name.slice(0, 2).toUpperCase()}</span>
        <span>
          <span className="summary-merchant-name">{terms.merchant.name}</span>
          <span className="summary-sub">Subscription via {terms.platform.name}</span>
        </span>
      </p>
      <p className="summary-label">Amount per {intervalText(terms)}</p>
      <p className="summary-amount" data-testid="subscription-amount">
        {formatHuman(terms.amount)} <span className="summary-currency">{terms.token.symbol}</span>
      </p>
      <dl className="sub-terms">
        <dt>Billed</dt>
        <dd>Every {intervalText(terms)}, first charge when you subscribe</dd>
        <dt>Ends</dt>
        <dd>{end ?? 'When you or the merchant stop it'}</dd>
      </dl>
      <table className="split-table" aria-label="Fee breakdown per charge">
        <caption>How each charge is split</caption>
        <tbody>
          <tr><th scope="row">Service fee <span className="muted">(Trisettle)</span></th><td>{formatBase(split.service_fee)}</td></tr>
          <tr><th scope="row">Platform fee <span className="muted">({terms.platform.name})</span></th><td>{formatBase(split.platform_fee)}</td></tr>
          <tr><th scope="row">{terms.merchant.name} receives</th><td>{formatBase(split.merchant_gross)}</td></tr>
          <tr className="split-sub"><th scope="row">of which held in reserve</th><td>{formatBase(split.reserve_hold)}</td></tr>
        </tbody>
      </table>
      <p className="summary-note" data-testid="exposure">
        Your exposure: at most {per} per {intervalText(terms)}, never more often, only to these parties at this split. You can stop it from your wallet at any time, without
        Trisettle or the merchant.
      </p>
    </div>
  );
}
