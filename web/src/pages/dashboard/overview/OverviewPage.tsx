import { useQuery } from '@tanstack/react-query';
import { Clip, Badge, Card, Link } from '../../../components/ui';
import { api } from '../../../lib/api';
import { formatDate, formatShortDate, formatDay } from '../../../lib/format';
import { formatHuman } from '../../../lib/money';
import { navigate, useTitle } from '../../../lib/router';
import type { List, NetVolume, Order, Summary } from '../../../lib/types';
import { NetVolumeCard } from '../balances/BalancesPage';
import { ApiErrorAlert } from '../shared/ApiErrorAlert';
import { OrderAmount } from '../orders/OrderAmount';
import { Table } from '../../../components/Table';

export function OverviewPage() {
  useTitle('Home');
  const summary = useQuery({ queryKey: ['summary'], queryFn: () => api.get<Summary>('/v1/orders/summary'), refetchInterval: 15_000 });
  const recent = useQuery({ queryKey: ['orders', 'recent'], queryFn: () => api.get<List<Order>>('/v1/orders', { limit: 6 }), refetchInterval: 15_000 });
  // The window is the chain's (net volume counts by block time up to the indexed chain day), like the net volume
  // card below it: on the devnet both move with the test clock.
  const week = useQuery({ queryKey: ['net_volume', 7], queryFn: () => api.get<NetVolume>('/v1/balance/net_volume', { days: 7 }), refetchInterval: 15_000 });
  const s = summary.data;
  const cards: [string, string | number | undefined, string][] = [
    ['Gross volume · 7 days', week.data ? `${formatHuman(week.data.gross)} USDC` : undefined, `Paid on chain, ${week.data ? `${formatDay(week.data.data[0]!.day)} – ${formatDay(week.data.data.at(-1)!.day)}` : 'the last 7 days'} (UTC)`],
    ['Confirmed orders', s?.confirmed, 'Paid and final on-chain'],
    ['Awaiting payment', s?.pending, 'Created, not paid yet'],
    ['All orders', s?.total, 'Since you started'],
  ];
  return (
    <div className="page">
      <div className="page-head">
        <h1 className="page-title">Home</h1>
      </div>
      {summary.isError && <ApiErrorAlert title="Could not load the summary" error={summary.error} />}
      {week.isError && <ApiErrorAlert title="Could not load the volume" error={week.error} />}
      <div className="stat-grid">
        {cards.map(([label, value, hint]) => (
          <div className="stat" key={label}>
            <p className="stat-label">{label}</p>
            <p className="stat-value" data-testid={`stat-${label}`}>{value ?? <span className="skeleton skeleton-lg" />}</p>
            <p className="stat-hint">{hint}</p>
          </div>
        ))}
      </div>
      <NetVolumeCard />
      <Card title="Recent orders" actions={<Link href="/dashboard/orders" className="btn btn-ghost btn-sm"><span>View all</span></Link>} padded={false}>
        {recent.isError ? (
          <div className="card-body"><ApiErrorAlert error={recent.error} /></div>
        ) : recent.data && recent.data.data.length === 0 ? (
          <div className="card-body empty-inline">No orders yet. Create one under Orders, or from your server with the API.</div>
        ) : (
          <Table label="Recent orders" className="table-click">
            <thead>
              <tr><th scope="col" className="num">Amount</th><th scope="col">Status</th><th scope="col">Order</th><th scope="col">Merchant</th><th scope="col">Created</th></tr>
            </thead>
            <tbody>
              {(recent.data?.data ?? []).map((o) => (
                <tr key={o.id} onClick={() => navigate(`/dashboard/orders/${o.id}`)}>
                  <td className="num strong nowrap"><OrderAmount order={o} /></td>
                  <td><Badge state={o.state} /></td>
                  <td><Link href={`/dashboard/orders/${o.id}`}>{o.order_no}</Link></td>
                  <td><Clip mono text={o.merchant_id} /></td>
                  <td className="muted">{formatShortDate(o.created_at)}</td>
                </tr>
              ))}
              {recent.isPending && Array.from({ length: 4 }, (_, i) => <tr key={i} className="skeleton-row"><td colSpan={5}><span className="skeleton" /></td></tr>)}
            </tbody>
          </Table>
        )}
      </Card>
    </div>
  );
}
