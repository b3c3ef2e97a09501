import { Alert } from '../../components/ui';
import { formatLocalDeadline } from '../../lib/format';
import type { CheckoutSession } from '../../lib/types';

/** Before a manual-capture payment: what the buyer agrees to (an authorization, charged on capture). */
export function AuthorizeNotice({ session, amountText }: { session: CheckoutSession; amountText: string }) {
  return (
    <Alert tone="info" title="You authorize now and are charged later">
      <p data-testid="authorize-notice">
        Paying authorizes <b>{amountText}</b>: the payment router holds it and nobody is paid yet. You are charged only when {session.merchant.name} captures
        the payment, by <b className="nowrap">{formatLocalDeadline(session.order.capture_before)}</b>. Anything not captured comes back to your wallet
        automatically.
      </p>
    </Alert>
  );
}
