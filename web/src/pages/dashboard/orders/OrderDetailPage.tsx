import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState, type ReactNode } from 'react';
import { Clip, Badge, Button, Card, ChainName, DescriptionList, Hash, Link, Spinner } from '../../../components/ui';
import { api, ApiError } from '../../../lib/api';
import { formatDate, formatShortDate } from '../../../lib/format';
import { chargedAmount, isManual } from '../../../lib/capture';
import { formatBase, formatHuman, toBase } from '../../../lib/money';
import { useTitle } from '../../../lib/router';
import { type List, type Order, type Refund } from '../../../lib/types';
import { AuthorizationCard } from './AuthorizationCard';
import { CaptureActions } from './CaptureActions';
import { captureRequest } from './capture-request';
import { RefundActions, RefundFunding } from '../refunds/RefundActions';
import { RefundModal } from '../refunds/RefundModal';
import { TimelineCard } from '../shared/Timeline';
import { When } from '../../../components/When';
import { payer, paymentMethod } from './payment-method';
import { SplitBar } from './SplitBar';
import { ApiErrorAlert } from '../shared/ApiErrorAlert';
import { Table } from '../../../components/Table';

const CANCELLATION = { pending: 'cancelling', cancelled: 'cancelled on chain', too_late: 'executed before the cancellation' } as const;
const isOpen = (r: Refund) => r.state === 'pending' || r.state === 'requires_funding';

export function OrderDetailPage({ id }: { id: string }) {
  useTitle('Order');
  const order = useQuery({
    queryKey: ['order', id],
    queryFn: () => api.get<Order>(`/v1/orders/${encodeURIComponent(id)}`),
    // Unpaid and authorized orders move on chain (paid; captured, voided or reclaimed): follow them live,
    // every 2 s while a requested capture or void is on its way.
    refetchInterval: (q) => {
      const o = q.state.data;
      if (o?.state === 'pending_payment') return 4_000;
      if (o?.state === 'authorized') return captureRequest(o) ? 2_000 : 10_000;
      return false;
    },
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
        <ApiErrorAlert title={order.error instanceof ApiError && order.error.status === 404 ? 'Order not found' : 'Could not load the order'} error={order.error} />
      </div>
    );
  }
  const o = order.data;
  const canRefund = o.state === 'confirmed' || o.state === 'partially_refunded';
  const manual = isManual(o);
  return (
    <div className="page">
      <Link href="/dashboard/orders" className="back-link">← Orders</Link>
      <div className="page-head">
        <div>
          <p className="eyebrow">Order {o.order_no}</p>
          <h1 className="page-title amount-title">
            {formatHuman(chargedAmount(o))} <span className="muted">{o.token}</span> <Badge state={o.state} />
          </h1>
        </div>
        <div className="page-actions">
          {canRefund && <Button variant="danger" onClick={() => setRefunding(true)}>Refund</Button>}
          {o.state === 'authorized' && <CaptureActions order={o} />}
        </div>
      </div>
      {manual && o.state !== 'voided' && <AuthorizationCard order={o} />}
      <div className="detail-grid">
        {o.state === 'voided' ? <AuthorizationCard order={o} /> : (
          <Card title={o.state === 'authorized' || (manual && o.state === 'pending_payment') ? 'Split if captured in full' : 'Split'}>
            <SplitBar order={o} />
          </Card>
        )}
        <Card title="Details">
          <DescriptionList
            items={[
              ['Order ID', <Hash key="id" value={o.id} />],
              ['Merchant', <Link key="m" href={`/dashboard/merchants/${encodeURIComponent(o.merchant_id)}`} className="mono-soft">{o.merchant_id}</Link>],
              ['Network', <ChainName key="n" chainId={o.chain_id} />],
              ['Capture', manual ? 'Manual (charge later)' : 'Automatic'],
              ['Payment router', <Hash key="r" value={o.pay_to} />],
              ...(o.reserve_remaining !== undefined ? [['Reserve still held', `${formatBase(o.reserve_remaining)} USDC`] as [string, string]] : []),
              ['Created', formatDate(o.created_at)],
              ['Pay before', <When key="d" iso={o.deadline_at} testId="pay-before" />],
              ...(o.state === 'voided' ? [] : [[manual ? 'Captured at' : 'Confirmed', formatDate(o.confirmed_at)] as [string, string]]),
              ['Payment method', paymentMethod(o)],
              ['Payer', payer(o) ? <Hash key="py" value={payer(o)!} /> : '—'],
              ['Paid by', o.paid_by ? <Hash key="pb" value={o.paid_by} /> : '—'],
              ['Transaction', o.tx_hash ? <Hash key="tx" value={o.tx_hash} head={10} tail={8} /> : '—'],
              ...(o.payer_address ? [['Reserved for', <Hash key="pa" value={o.payer_address} />] as [string, ReactNode]] : []),
              ...(o.refunded_amount && isPositive(o.refunded_amount) ? [['Refunded', `${formatHuman(o.refunded_amount)} USDC`] as [string, string]] : []),
              ...(o.failure_reason ? [['Failure reason', o.failure_reason] as [string, string]] : []),
            ]}
          />
        </Card>
      </div>
      {o.state !== 'authorized' && o.state !== 'voided' && <Card title="Refunds" padded={false}>
        {refunds.isError ? (
          <div className="card-body"><ApiErrorAlert error={refunds.error} /></div>
        ) : (refunds.data?.data.length ?? 0) === 0 ? (
          <div className="card-body empty-inline">{refunds.isPending ? 'Loading…' : 'No refunds for this order.'}</div>
        ) : (
          <Table label="Refunds of this order">
            <thead><tr><th scope="col" className="num">Amount</th><th scope="col">Status</th><th scope="col" className="num">Paid from</th><th scope="col">Transaction</th><th scope="col">Reason</th><th scope="col">Created</th><th scope="col"><span className="sr-only">Actions</span></th></tr></thead>
            <tbody>
              {refunds.data!.data.map((r) => (
                <tr key={r.id} data-refund-id={r.id}>
                  <td className="num strong"><Link href={`/dashboard/refunds/${encodeURIComponent(r.id)}`}>{formatHuman(r.amount)}</Link></td>
                  <td className="nowrap"><Badge state={r.state} />{r.cancellation && <span className="muted"> · {CANCELLATION[r.cancellation]}</span>}</td>
                  <td className="num"><RefundFunding refund={r} /></td>
                  <td>{r.tx_hash ? <Hash value={r.tx_hash} head={8} tail={4} copy={false} /> : '—'}</td>
                  <td><Clip text={r.reason ?? '—'} twoLines /></td>
                  <td className="muted">{formatShortDate(r.created_at)}</td>
                  <td><RefundActions refund={r} /></td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </Card>}
      <TimelineCard kind="orders" id={o.id} live={o.state === 'pending_payment' || o.state === 'authorized'} />
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
