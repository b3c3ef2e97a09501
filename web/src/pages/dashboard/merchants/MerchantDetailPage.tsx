import { useQuery } from '@tanstack/react-query';
import { Badge, Card, ChainName, DescriptionList, Hash, Link, SkeletonRows, Spinner } from '../../../components/ui';
import { api, ApiError } from '../../../lib/api';
import { formatDate, formatShortDate } from '../../../lib/format';
import { formatBase, formatBps, formatHuman } from '../../../lib/money';
import { navigate, useTitle } from '../../../lib/router';
import type { Balance, Merchant, Order } from '../../../lib/types';
import { BalanceFigures } from '../balances/BalancesPage';
import { Pager, usePaged } from '../shared/paging';
import { TimelineCard } from '../shared/Timeline';
import { ApiErrorAlert } from '../shared/ApiErrorAlert';
import { OrderAmount } from '../orders/OrderAmount';
import { Table } from '../../../components/Table';

/** One merchant, read-only: the spec sends changes to a merchant (wallet, reserve) through support. */
export function MerchantDetailPage({ id }: { id: string }) {
  useTitle('Merchant');
  const merchant = useQuery({ queryKey: ['merchant', id], queryFn: () => api.get<Merchant>(`/v1/merchants/${encodeURIComponent(id)}`) });
  const externalId = merchant.data?.external_id;
  const balance = useQuery({ queryKey: ['balance', externalId], enabled: Boolean(externalId), queryFn: () => api.get<Balance>('/v1/balance', { merchant_id: externalId }) });
  const orders = usePaged<Order>('orders', '/v1/orders', { merchant_id: externalId ?? id }, 10);

  if (merchant.isPending) return <div className="page"><Spinner label="Loading merchant" /></div>;
  if (merchant.isError) {
    return (
      <div className="page">
        <Link href="/dashboard/merchants" className="back-link">← Merchants</Link>
        <ApiErrorAlert title={merchant.error instanceof ApiError && merchant.error.status === 404 ? 'Merchant not found' : 'Could not load the merchant'} error={merchant.error} />
      </div>
    );
  }
  const m = merchant.data;
  return (
    <div className="page">
      <Link href="/dashboard/merchants" className="back-link">← Merchants</Link>
      <div className="page-head">
        <div>
          <p className="eyebrow">Merchant {m.external_id}</p>
          <h1 className="page-title">{m.name} <Badge state={m.state} /></h1>
        </div>
      </div>
      <Card title="Details">
        <DescriptionList
          items={[
            ['Merchant ID', <Hash key="e" value={m.external_id} />],
            ['Trisettle ID', <Hash key="i" value={m.id} />],
            ['Payout wallet', <Hash key="w" value={m.merchant_wallet} head={10} tail={8} />],
            ['Network', <ChainName key="n" chainId={m.chain_id} />],
            ['Reserve', formatBps(m.reserve_bps)],
            ['Added', formatDate(m.created_at)],
          ]}
        />
        <p className="muted">The wallet and reserve were agreed when the merchant joined; to change them, contact Trisettle support.</p>
      </Card>
      <Card title="Balance">
        {balance.isError ? <ApiErrorAlert error={balance.error} /> : balance.data ? <BalanceFigures b={balance.data} /> : <p className="muted">Loading…</p>}
      </Card>
      <TimelineCard kind="merchants" id={id} />
      <Card title="Orders" padded={false}>
        {orders.query.isError ? (
          <div className="card-body"><ApiErrorAlert error={orders.query.error} /></div>
        ) : !orders.query.isPending && orders.rows.length === 0 ? (
          <div className="card-body empty-inline">No orders for this merchant yet.</div>
        ) : (
          <Table label="Merchant orders" className="table-click">
              <thead><tr><th scope="col" className="num">Amount</th><th scope="col">Status</th><th scope="col">Order</th><th scope="col" className="num">Reserve held</th><th scope="col">Created</th></tr></thead>
              <tbody>
                {orders.query.isPending ? <SkeletonRows cols={5} /> : orders.rows.map((o) => (
                  <tr key={o.id} onClick={() => navigate(`/dashboard/orders/${o.id}`)}>
                    <td className="num strong nowrap"><OrderAmount order={o} /></td>
                    <td><Badge state={o.state} /></td>
                    <td><Link href={`/dashboard/orders/${o.id}`}>{o.order_no}</Link></td>
                    <td className="num">{formatBase(o.reserve_remaining)}</td>
                    <td className="muted">{formatShortDate(o.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </Table>
        )}
        <Pager page={orders.page} hasPrev={orders.hasPrev} hasNext={orders.hasNext} onPrev={orders.prev} onNext={orders.next} count={orders.rows.length} />
      </Card>
    </div>
  );
}
