import { Fragment, useState } from 'react';
import { Badge, Button, Card, ChainName, Empty, Hash, Link, SkeletonRows } from '../../../components/ui';
import { formatDate, formatShortDate } from '../../../lib/format';
import { formatHuman } from '../../../lib/money';
import { useTitle } from '../../../lib/router';
import type { Settlement } from '../../../lib/types';
import { ExportLink } from '../shared/exports';
import { Pager, usePaged } from '../shared/paging';
import { TestClock } from './TestClock';
import { ApiErrorAlert } from '../shared/ApiErrorAlert';
import { Table } from '../../../components/Table';

/** Reserve-release batches: what each released to your merchants, its transaction, and each order in it. */
export function SettlementsPage() {
  useTitle('Settlements');
  const paged = usePaged<Settlement>('settlements', '/v1/settlements');
  const [open, setOpen] = useState<string | null>(null);
  return (
    <div className="page">
      <div className="page-head">
        <h1 className="page-title">Settlements</h1>
        <div className="page-actions"><ExportLink kind="settlements" label="Export CSV" /></div>
      </div>
      <TestClock />
      <Card padded={false}>
        {paged.query.isError ? (
          <div className="card-body"><ApiErrorAlert title="Could not load settlements" error={paged.query.error} /></div>
        ) : !paged.query.isPending && paged.rows.length === 0 ? (
          <Empty title="No settlements yet">Once an order&apos;s reserve hold ends, Trisettle releases it to the merchant in a batch; batches carrying your orders show here.</Empty>
        ) : (
          <Table label="Settlements">
              <thead><tr><th scope="col">Batch</th><th scope="col">Status</th><th scope="col" className="num">Released</th><th scope="col" className="num">Orders</th><th scope="col">Transaction</th><th scope="col">Network</th><th scope="col">Confirmed</th><th scope="col"><span className="sr-only">Details</span></th></tr></thead>
              <tbody>
                {paged.query.isPending ? <SkeletonRows cols={8} /> : paged.rows.map((s) => (
                  <Fragment key={s.id}>
                    <tr>
                      <td><Hash value={s.id} /></td>
                      <td><Badge state={s.state} /></td>
                      <td className="num strong nowrap">{formatHuman(s.total)} <span className="muted">USDC</span></td>
                      <td className="num">{s.order_count}</td>
                      <td>{s.tx_hash ? <Hash value={s.tx_hash} head={10} tail={6} /> : '—'}</td>
                      <td><ChainName chainId={s.chain_id} short /></td>
                      <td className="muted">{formatShortDate(s.confirmed_at ?? s.created_at)}</td>
                      <td>
                        <Button size="sm" aria-expanded={open === s.id} onClick={() => setOpen(open === s.id ? null : s.id)}>
                          {open === s.id ? 'Hide orders' : 'Show orders'}
                        </Button>
                      </td>
                    </tr>
                    {open === s.id && (
                      <tr className="subrow">
                        <td colSpan={8}>
                          <Table label={`Orders in ${s.id}`} className="table-inner">
                            <thead><tr><th scope="col">Order</th><th scope="col">Merchant</th><th scope="col">Status</th><th scope="col" className="num">Reserve</th><th scope="col" className="num">Released</th></tr></thead>
                            <tbody>
                              {s.orders.map((o) => (
                                <tr key={o.order_id}>
                                  <td><Link href={`/dashboard/orders/${o.order_id}`}>{o.order_no}</Link></td>
                                  <td><Link href={`/dashboard/merchants/${encodeURIComponent(o.merchant_id)}`} className="mono-soft cell-clip">{o.merchant_id}</Link></td>
                                  <td><Badge state={o.state} /></td>
                                  <td className="num">{formatHuman(o.amount)}</td>
                                  <td className="num">{o.released_amount ? formatHuman(o.released_amount) : '—'}</td>
                                </tr>
                              ))}
                            </tbody>
                          </Table>
                        </td>
                      </tr>
                    )}
                  </Fragment>
                ))}
              </tbody>
            </Table>
        )}
        <Pager page={paged.page} hasPrev={paged.hasPrev} hasNext={paged.hasNext} onPrev={paged.prev} onNext={paged.next} count={paged.rows.length} />
      </Card>
    </div>
  );
}
