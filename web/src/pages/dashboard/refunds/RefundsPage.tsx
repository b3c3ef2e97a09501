import { useState } from 'react';
import { Clip, Badge, Button, Card, Empty, Link, SkeletonRows } from '../../../components/ui';
import { formatDate, formatShortDate, humanize } from '../../../lib/format';
import { formatHuman } from '../../../lib/money';
import { useTitle } from '../../../lib/router';
import type { Refund } from '../../../lib/types';
import { Pager, usePaged } from '../shared/paging';
import { RefundActions, RefundFunding } from './RefundActions';
import { RefundModal } from './RefundModal';
import { ApiErrorAlert } from '../shared/ApiErrorAlert';
import { Table } from '../../../components/Table';

const STATES = ['', 'pending', 'requires_funding', 'completed', 'failed'];

export function RefundsPage() {
  useTitle('Refunds');
  const [state, setState] = useState('');
  const paged = usePaged<Refund>('refunds', '/v1/refunds', { state: state || undefined });
  const [open, setOpen] = useState(false);
  return (
    <div className="page">
      <div className="page-head">
        <h1 className="page-title">Refunds</h1>
        <div className="page-actions"><Button variant="primary" onClick={() => setOpen(true)}>New refund</Button></div>
      </div>
      <div className="filters" role="group" aria-label="Filter by status">
        {STATES.map((s) => (
          <button key={s || 'all'} type="button" className={`chip${state === s ? ' chip-active' : ''}`} aria-pressed={state === s} onClick={() => setState(s)}>
            {s ? humanize(s) : 'All'}
          </button>
        ))}
      </div>
      <Card padded={false}>
        {paged.query.isError ? (
          <div className="card-body"><ApiErrorAlert title="Could not load refunds" error={paged.query.error} /></div>
        ) : !paged.query.isPending && paged.rows.length === 0 ? (
          <Empty title="No refunds">Refund a confirmed order from its page, or with New refund.</Empty>
        ) : (
          <Table label="Refunds">
              <thead><tr><th scope="col" className="num">Amount</th><th scope="col">Status</th><th scope="col">Order</th><th scope="col" className="num">Paid from</th><th scope="col">Reason</th><th scope="col">Created</th><th scope="col"><span className="sr-only">Actions</span></th></tr></thead>
              <tbody>
                {paged.query.isPending ? <SkeletonRows cols={7} /> : paged.rows.map((r) => (
                  <tr key={r.id}>
                    <td className="num strong nowrap"><Link href={`/dashboard/refunds/${encodeURIComponent(r.id)}`}>{formatHuman(r.amount)}</Link> <span className="muted">USDC</span></td>
                    <td><Badge state={r.state} /></td>
                    <td><Link href={`/dashboard/orders/${r.order_id}`} className="mono-soft cell-clip">{r.order_id}</Link></td>
                    <td className="num"><RefundFunding refund={r} /></td>
                    <td><Clip text={r.reason ?? '—'} twoLines /></td>
                    <td className="muted">{formatShortDate(r.created_at)}</td>
                    <td><RefundActions refund={r} /></td>
                  </tr>
                ))}
              </tbody>
            </Table>
        )}
        <Pager page={paged.page} hasPrev={paged.hasPrev} hasNext={paged.hasNext} onPrev={paged.prev} onNext={paged.next} count={paged.rows.length} />
      </Card>
      {open && <RefundModal onClose={() => setOpen(false)} />}
    </div>
  );
}
