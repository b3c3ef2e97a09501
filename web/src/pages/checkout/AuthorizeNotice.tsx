import { Alert } from '../../components/ui';
import { formatLocalDeadline } from '../../lib/format';
import type { CheckoutSession } from '../../lib/types';

/** Before a manual-capture payment: what the buyer agrees to (an authorization, charged on capture). */
export function AuthorizeNotice({ session, amountText }: { session: CheckoutSession; amountText: string }) {
  const merchant = session.merchant.name;
  return (
    <Alert tone="info" title="You authorize now, you are charged later">
      <p data-testid="authorize-notice">
        Paying authorizes <strong>{amountText}</strong>: the payment router holds it and nobody is paid yet. You are charged only when {merchant} captures
        the payment, by <strong className="nowrap">{formatLocalDeadline(session.order.capture_before)}</strong>. Anything {merchant} does not capture comes back
        to your wallet automatically.
      </p>
    </Alert>
  );
}
