import { StatePanel } from '../../components/PublicShell';
import { isManual } from '../../lib/capture';
import { formatLocalDeadline } from '../../lib/format';
import { formatHuman } from '../../lib/money';
import type { CheckoutSession } from '../../lib/types';

/** The link opened again after paying: paid, or (charge later) authorized, or the authorization voided. */
export function DonePanel({ session, successUrl }: { session: CheckoutSession; successUrl: string | null }) {
  const { order, merchant } = session;
  const amount = `${formatHuman(order.amount)} ${order.token}`;
  const back = successUrl && <a className="btn btn-primary btn-md" href={successUrl}><span>Return to {merchant.name}</span></a>;
  if (isManual(order) && order.state === 'authorized') {
    return (
      <StatePanel icon="check" title="This payment is authorized" actions={back}>
        <p>
          Order {order.order_no}: {amount} is held for {merchant.name}. You are charged only when they capture it, by {formatLocalDeadline(order.capture_before)};
          anything not captured comes back to your wallet automatically. There is nothing more to do.
        </p>
      </StatePanel>
    );
  }
  if (order.state === 'voided') {
    return (
      <StatePanel icon="check" title="This authorization was released" actions={back}>
        <p>Order {order.order_no} was not charged: the whole {amount} went back to the wallet that authorized it. There is nothing more to do.</p>
      </StatePanel>
    );
  }
  return (
    <StatePanel icon="check" title="This order is paid" actions={back}>
      <p>Order {order.order_no}: {amount} to {merchant.name}. There is nothing more to do.</p>
    </StatePanel>
  );
}
