import { Card, DescriptionList } from '../../../components/ui';
import { captureFigures, VOID_REASON } from '../../../lib/capture';
import { formatDate, formatRemaining } from '../../../lib/format';
import { formatBase, formatHuman } from '../../../lib/money';
import { useNow } from '../../../lib/useNow';
import type { Order } from '../../../lib/types';

/** The manual-capture side of an order (charge later): what is held, until when, and how it ended. */
export function AuthorizationCard({ order }: { order: Order }) {
  const figures = captureFigures(order);
  if (order.state === 'authorized') {
    return (
      <Card title="Authorization" className="authorization-card">
        <DescriptionList
          items={[
            ['Authorized', `${formatHuman(order.amount_authorized)} USDC`],
            ['Capture before', <Deadline key="d" iso={order.capture_before} />],
          ]}
        />
        <p className="muted card-note">
          The payment router holds the buyer&apos;s funds; nobody has been paid yet. Capture all or part of it before the deadline. Whatever is not
          captured goes back to the buyer, and after the deadline the buyer can take all of it back.
        </p>
      </Card>
    );
  }
  if (figures) {
    const items: [string, string][] = [
      ['Authorized', `${formatBase(figures.authorized)} USDC`],
      ['Captured', `${formatBase(figures.captured)} USDC`],
      ['Returned to the buyer', `${formatBase(figures.returned)} USDC`],
    ];
    return (
      <Card title="Authorization" className="authorization-card">
        <div data-testid="capture-figures">
          <DescriptionList items={items} />
          {order.state === 'voided' && order.void_reason && <p className="card-note void-reason">{VOID_REASON[order.void_reason]}</p>}
        </div>
      </Card>
    );
  }
  if (order.state !== 'pending_payment') return null;
  return (
    <Card title="Authorization" className="authorization-card">
      <p className="muted card-note">
        Charge later: the buyer&apos;s payment will only be authorized. You capture it, all or part, before {formatDate(order.capture_before)}; anything not captured
        goes back to the buyer.
      </p>
    </Card>
  );
}

/** The capture deadline and a live countdown to it (the router decides on chain time; this is the wall clock). */
function Deadline({ iso }: { iso: string | null }) {
  const now = useNow();
  if (!iso) return <>—</>;
  const left = new Date(iso).getTime() - now;
  return (
    <span data-testid="capture-deadline">
      {formatDate(iso)}{' '}
      {left > 0 ? <span className="muted tabular">· in {formatRemaining(left)}</span> : <span className="badge badge-amber">Deadline passed</span>}
    </span>
  );
}
