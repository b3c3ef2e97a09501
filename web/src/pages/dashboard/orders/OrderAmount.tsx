import { chargedAmount } from '../../../lib/capture';
import { formatHuman } from '../../../lib/money';
import type { Order } from '../../../lib/types';

/** An order's amount in a list: what was charged (the captured part of a captured charge-later order), with its token. */
export function OrderAmount({ order: o }: { order: Order }) {
  return <>{formatHuman(chargedAmount(o))} <span className="muted">{o.token}</span></>;
}
