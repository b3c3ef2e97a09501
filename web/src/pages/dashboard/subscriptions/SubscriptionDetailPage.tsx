import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Alert, Badge, Button, Card, ChainName, DescriptionList, Empty, Hash, Link, Spinner } from '../../../components/ui';
import { api, ApiError } from '../../../lib/api';
import { formatDate, formatShortDate, humanize } from '../../../lib/format';
import { formatBase, formatHuman } from '../../../lib/money';
import { useTitle } from '../../../lib/router';
import { When } from '../../../components/When';
import type { Order, Subscription } from '../../../lib/types';
import { Pager, usePaged } from '../shared/paging';
import { CancelModal } from './CancelModal';
import { every } from './SubscriptionsPage';
import './subscriptions.css';
import { OrderAmount } from '../orders/OrderAmount';
import { Table } from '../../../components/Table';

const live = (s: Subscription | undefined) => s?.state === 'active' || s?.state === 'past_due';

/** The subscription's charges: its orders, filtered server-side (GET /v1/orders?subscription_id=), a page at a time. */
const CHARGES_PAGE = 10;
export function SubscriptionDetailPage({ id }: { id: string }) {
  useTitle('Subscription');
  const sub = useQuery({
    queryKey: ['subscription', id],
    queryFn: () => api.get<Subscription>(`/v1/subscriptions/${encodeURIComponent(id)}`),
    refetchInterval: (q) => (q.state.data?.state === 'incomplete' || live(q.state.data) ? 4_000 : false),
  });
  const charges = usePaged<Order>('subscription-charges', '/v1/orders', { subscription_id: id }, CHARGES_PAGE, {
    refetchInterval: live(sub.data) ? 4_000 : false, enabled: sub.data !== undefined && sub.data.state !== 'incomplete',
  });
  const [canceling, setCanceling] = useState(false);
  if (sub.isPending) return <div className="page"><Spinner label="Loading subscription" /></div>;
  if (sub.isError) {
    return (
      <div className="page">
        <Link href="/dashboard/subscriptions" className="back-link">← Subscriptions</Link>
        <Alert tone="error" title={sub.error instanceof ApiError && sub.error.status === 404 ? 'Subscription not found' : 'Could not load the subscription'}>{sub.error.message}</Alert>
      </div>
    );
  }
  const s = sub.data;
  const split = s.computed_split;
  return (
    <div className="page">
      <Link href="/dashboard/subscriptions" className="back-link">← Subscriptions</Link>
      <div className="page-head">
        <h1 className="page-title">
          {formatHuman(s.amount)} {s.token} every {every(s)} <span data-testid="subscription-state"><Badge state={s.state} /></span>
        </h1>
        <div className="page-actions">
          {live(s) && !s.cancel_at_period_end && <Button variant="danger" onClick={() => setCanceling(true)}>Cancel subscription</Button>}
        </div>
      </div>
      {s.cancel_at_period_end && live(s) && <Alert tone="warning" title="Ends with this period">No charge after {formatDate(s.current_period_end)}.</Alert>}
      {s.state === 'past_due' && <Alert tone="warning" title="Past due">The last charge failed ({s.failed_attempts} {s.failed_attempts === 1 ? 'attempt' : 'attempts'}); the next retry is {formatDate(s.next_charge_at)}.</Alert>}
      <Card title="Details">
        <DescriptionList
          items={[
            ['ID', <Hash key="id" value={s.id} />],
            ['Merchant', <Link key="m" href={`/dashboard/merchants/${encodeURIComponent(s.merchant_id)}`} className="mono-soft">{s.merchant_id}</Link>],
            ['Network', <ChainName key="c" chainId={s.chain_id} />],
            ['Payer', s.payer ? <Hash key="p" value={s.payer} /> : s.payer_address ? <>Reserved for <Hash value={s.payer_address} /></> : 'Not signed yet'],
            ['Current period', s.current_period_start ? `${formatDate(s.current_period_start)} – ${formatDate(s.current_period_end)}` : '—'],
            ['Next charge', live(s) && !s.cancel_at_period_end ? <When key="n" iso={s.next_charge_at} testId="next-charge" /> : '—'],
            ['Periods charged', `${s.periods_charged}${s.max_periods ? ` of ${s.max_periods}` : ''}`],
            ['Per charge', `service ${formatBase(split.service_fee)} · platform ${formatBase(split.platform_fee)} · merchant ${formatBase(split.merchant_gross)} (reserve ${formatBase(split.reserve_hold)})`],
            ...(s.state === 'canceled' ? ([['Canceled', `${formatDate(s.canceled_at)} (${humanize(s.cancel_reason ?? '—')})`]] as [string, string][]) : []),
            ['Manager', <Hash key="mg" value={s.manager_address} />],
            ['Created', formatDate(s.created_at)],
          ]}
        />
      </Card>
      <Card title="Charges" padded={false}>
        {charges.query.isError ? (
          <div className="card-body"><Alert tone="error" title="Could not load the charges">{charges.query.error.message}</Alert></div>
        ) : charges.rows.length === 0 ? (
          <Empty title="No charges yet">{s.state === 'incomplete' ? 'The first period is charged when the payer signs.' : 'Charges appear here as orders.'}</Empty>
        ) : (
          <>
            <Table label="Charges">
                <thead><tr><th scope="col">Order</th><th scope="col" className="num">Period</th><th scope="col" className="num">Amount</th><th scope="col">Status</th><th scope="col">Created</th></tr></thead>
                <tbody>
                  {charges.rows.map((o) => (
                    <tr key={o.id}>
                      <td><Link href={`/dashboard/orders/${o.id}`} className="mono-soft cell-clip">{o.order_no}</Link></td>
                      <td className="num">{o.subscription_period ?? '—'}</td>
                      <td className="num strong nowrap"><OrderAmount order={o} /></td>
                      <td><Badge state={o.state} /></td>
                      <td className="muted">{formatShortDate(o.created_at)}</td>
                    </tr>
                  ))}
                </tbody>
              </Table>
            {(charges.hasPrev || charges.hasNext) && (
              <Pager page={charges.page} hasPrev={charges.hasPrev} hasNext={charges.hasNext} onPrev={charges.prev} onNext={charges.next} count={charges.rows.length} loading={charges.query.isFetching && charges.query.isPlaceholderData} />
            )}
          </>
        )}
      </Card>
      {canceling && <CancelModal sub={s} onClose={() => setCanceling(false)} />}
    </div>
  );
}
