import { withQuery } from '../../../lib/api';

export type ExportKind = 'orders' | 'refunds' | 'balance_transactions' | 'settlements';

const LABELS: Record<ExportKind, string> = {
  orders: 'Export orders',
  refunds: 'Export refunds',
  balance_transactions: 'Export ledger',
  settlements: 'Export settlements',
};

/** A CSV export (GET /v1/exports/<kind>.csv, streamed by the server; the session cookie authorises it). */
export function ExportLink({ kind, from, to, label }: { kind: ExportKind; from?: string; to?: string; label?: string }) {
  return (
    <a className="btn btn-secondary btn-sm" href={withQuery(`/v1/exports/${kind}.csv`, { from, to })} download={`${kind}.csv`}>
      {label ?? LABELS[kind]}
    </a>
  );
}
