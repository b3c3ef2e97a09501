import { formatBase, formatHuman } from '../../lib/money';
import { formatDate } from '../../lib/format';
import type { SubscriptionAuthorization } from '../../lib/types';
import './subscribe.css';

type Terms = Pick<SubscriptionAuthorization, 'amount' | 'interval' | 'interval_count' | 'max_periods' | 'computed_split' | 'merchant' | 'platform' | 'token' | 'typed_data' | 'state' | 'authorized'>;

/** "month", "3 months". */
export const intervalText = (t: Pick<Terms, 'interval' | 'interval_count'>) => (t.interval_count === 1 ? t.interval : `${t.interval_count} ${t.interval}s`);

/**
 * The end of the permission window, or null when it runs until stopped. Once signed it is the end the payer signed
 * (authorized.end_at), never one recomputed from now; before, the end signing now would give (the typed data's, whose
 * start is the chain's clock now — on the devnet, the test clock's time).
 */
export function endText(t: Terms): string | null {
  if (t.max_periods === null) return null;
  const end = t.authorized ? t.authorized.end_at : new Date(Number((t.typed_data.message as { end?: number | string }).end) * 1000).toISOString();
  return `after ${t.max_periods} ${t.max_periods === 1 ? 'charge' : 'charges'} (${formatDate(end)})`;
}

/** How it is billed, in words that fit the state: a promise before signing, the signed start after. */
export function billedText(t: Terms): string {
  const every = `Every ${intervalText(t)}`;
  if (!t.authorized) return `${every}, first charge when you subscribe`;
  return t.state === 'canceled' ? `${every} from ${formatDate(t.authorized.start_at)} until it stopped` : `${every} since ${formatDate(t.authorized.start_at)}`;
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
        <dd data-testid="subscription-billed">{billedText(terms)}</dd>
        <dt>Ends</dt>
        <dd data-testid="subscription-end">{end ?? 'When you or the merchant stop it'}</dd>
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
