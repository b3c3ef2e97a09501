import { humanize } from '../../../lib/format';

/**
 * Ledger rows in plain words. The payment, refund and reserve legs read well as their type names; the
 * charge-later legs say where the money went.
 */
const LABELS: Record<string, string> = {
  authorization_hold: 'Authorized, held by the router',
  authorization_return: 'Not captured, returned to the buyer',
  authorization_void: 'Authorization voided, returned to the buyer',
  authorization_reclaim: 'Authorization reclaimed by the buyer',
};

export const ledgerLabel = (type: string) => LABELS[type] ?? humanize(type);
