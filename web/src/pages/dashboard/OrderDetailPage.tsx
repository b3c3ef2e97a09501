import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type ReactNode } from 'react';
import { Alert, Badge, Button, Card, ChainName, DescriptionList, Hash, Link, Spinner } from '../../components/ui';
import { api, ApiError } from '../../lib/api';
import { formatDate } from '../../lib/format';
import { formatBase, formatHuman, toBase } from '../../lib/money';
import { useTitle } from '../../lib/router';
import { type List, type Order, type Refund } from '../../lib/types';
import { RefundActions } from './RefundActions';
import { RefundModal } from './RefundModal';

const CANCELLATION = { pending: 'cancelling', cancelled: 'cancelled on chain', too_late: 'executed before the cancellation' } as const;
const isOpen = (r: Refund) => r.state === 'pending' || r.state === 'requires_funding';

export function OrderDetailPage({ id }: { id: string }) {
  useTitle('Order');
  const order = useQuery({
    queryKey: ['order', id],
    queryFn: () => api.get<Order>(`/v1/orders/${encodeURIComponent(id)}`),
    refetchInterval: (q) => (q.state.data?.state === 'pending_payment' ? 4_000 : false),
  });
  const refunds = useQuery({
    queryKey: ['refunds', 'order', id],
    queryFn: () => api.get<List<Refund>>('/v1/refunds', { order_id: id, limit: 100 }),
    // Open refunds move on chain (funded, cancelled, executed by the service): follow them live.
    refetchInterval: (q) => (q.state.data?.data.some(isOpen) ? 2_000 : false),
  });
  const [refunding, setRefunding] = useState(false);
  const qc = useQueryClient();
  const refundStates = refunds.data?.data.map((r) => `${r.id}:${r.state}`).join(',') ?? '';
  useEffect(() => {
    if (refundStates) void qc.invalidateQueries({ queryKey: ['order', id] });
  }, [refundStates, qc, id]);

  if (order.isPending) return <div className="page"><Spinner label="Loading order" /></div>;
  if (order.isError) {
    return (
      <div className="page">
        <Link href="/dashboard/orders" className="back-link">← Orders</Link>
        <Alert tone="error" title={order.error instanceof ApiError && order.error.status === 404 ? 'Order not found' : 'Could not load the order'}>{order.error.message}</Alert>
      </div>
    );
  }
  const o = order.data;
  const canRefund = o.state === 'confirmed' || o.state === 'partially_refunded';
  return (
    <div className="page">
      <Link href="/dashboard/orders" className="back-link">← Orders</Link>
      <div className="page-head">
        <div>
          <p className="eyebrow">Order {o.order_no}</p>
          <h1 className="page-title amount-title">
            {formatHuman(o.amount)} <span className="muted">{o.token}</span> <Badge state={o.state} />
          </h1>
        </div>
        <div className="page-actions">{canRefund && <Button variant="danger" onClick={() => setRefunding(true)}>Refund</Button>}</div>
      </div>
      <div className="detail-grid">
        <Card title="Split">
          <SplitBar order={o} />
        </Card>
        <Card title="Details">
          <DescriptionList
            items={[
              ['Order ID', <Hash key="id" value={o.id} />],
              ['Merchant', <Link key="m" href={`/dashboard/merchants/${encodeURIComponent(o.merchant_id)}`} className="mono-soft">{o.merchant_id}</Link>],
              ['Network', <ChainName key="n" chainId={o.chain_id} />],
              ['Payment router', <Hash key="r" value={o.pay_to} />],
              ...(o.reserve_remaining !== undefined ? [['Reserve held', `${formatBase(o.reserve_remaining)} USDC`] as [string, string]] : []),
              ['Created', formatDate(o.created_at)],
              ['Pay before', formatDate(o.deadline_at)],
              ['Confirmed', formatDate(o.confirmed_at)],
              ['Paid by', o.paid_by ? <Hash key="pb" value={o.paid_by} /> : '—'],
              ['Transaction', o.tx_hash ? <Hash key="tx" value={o.tx_hash} head={10} tail={8} /> : '—'],
              ...(o.payer_address ? [['Reserved for', <Hash key="pa" value={o.payer_address} />] as [string, ReactNode]] : []),
              ...(o.refunded_amount && isPositive(o.refunded_amount) ? [['Refunded', `${formatHuman(o.refunded_amount)} USDC`] as [string, string]] : []),
              ...(o.failure_reason ? [['Failure reason', o.failure_reason] as [string, string]] : []),
            ]}
          />
        </Card>
      </div>
      <Card title="Refunds" padded={false}>
        {refunds.isError ? (
          <div className="card-body"><Alert tone="error">{refunds.error.message}</Alert></div>
        ) : (refunds.data?.data.length ?? 0) === 0 ? (
          <div className="card-body empty-inline">{refunds.isPending ? 'Loading…' : 'No refunds for this order.'}</div>
        ) : (
          <div className="table-scroll"><table className="table" aria-label="Refunds of this order">
            <thead><tr><th scope="col" className="num">Amount</th><th scope="col">Status</th><th scope="col" className="num">From reserve</th><th scope="col" className="num">Wallet funds</th><th scope="col">Transaction</th><th scope="col">Reason</th><th scope="col">Created</th><th scope="col"><span className="sr-only">Actions</span></th></tr></thead>
            <tbody>
              {refunds.data!.data.map((r) => (
                <tr key={r.id} data-refund-id={r.id}>
                  <td className="num strong">{formatHuman(r.amount)}</td>
                  <td className="nowrap"><Badge state={r.state} />{r.cancellation && <span className="muted"> · {CANCELLATION[r.cancellation]}</span>}</td>
                  <td className="num">{formatBase(r.reserve_portion)}</td>
                  <td className="num">{formatBase(r.funding_required)}</td>
                  <td>{r.tx_hash ? <Hash value={r.tx_hash} head={10} tail={6} /> : '—'}</td>
                  <td>{r.reason ?? '—'}</td>
                  <td className="muted">{formatDate(r.created_at)}</td>
                  <td><RefundActions refund={r} /></td>
                </tr>
              ))}
            </tbody>
          </table></div>
        )}
      </Card>
      {o.metadata && Object.keys(o.metadata).length > 0 && (
        <Card title="Metadata">
          <pre className="code-block">{JSON.stringify(o.metadata, null, 2)}</pre>
        </Card>
      )}
      {refunding && <RefundModal orderId={o.id} onClose={() => setRefunding(false)} />}
    </div>
  );
}

function isPositive(human: string): boolean {
  try {
    return toBase(human) > 0n;
  } catch {
    return false;
  }
}

function SplitBar({ order }: { order: Order }) {
  const s = order.computed_split;
  const parts: [string, string, string][] = [
    ['Service fee', s.service_fee, 'seg-service'],
    ['Platform fee', s.platform_fee, 'seg-platform'],
    ['Merchant, available now', s.merchant_available, 'seg-merchant'],
    ['Merchant, held in reserve', s.reserve_hold, 'seg-reserve'],
  ];
  const total = parts.reduce((a, [, v]) => a + BigInt(v || '0'), 0n);
  return (
    <div className="split">
      <div className="split-bar" role="img" aria-label="Split of the payment">
        {parts.map(([label, v, cls]) => {
          const pct = total > 0n ? Number((BigInt(v || '0') * 10000n) / total) / 100 : 0;
          return pct > 0 ? <span key={label} className={`seg ${cls}`} style={{ width: `${pct}%` }} title={`${label}: ${formatBase(v)} USDC`} /> : null;
        })}
      </div>
      <table className="split-legend">
        <tbody>
          {parts.map(([label, v, cls]) => (
            <tr key={label}><th scope="row"><span className={`swatch ${cls}`} aria-hidden="true" />{label}</th><td className="num">{formatBase(v)} USDC</td></tr>
          ))}
          <tr className="split-total"><th scope="row">Merchant gross</th><td className="num">{formatBase(s.merchant_gross)} USDC</td></tr>
          <tr className="split-total"><th scope="row">Total paid</th><td className="num">{formatHuman(order.amount)} USDC</td></tr>
        </tbody>
      </table>
    </div>
  );
}
