import { useQuery } from '@tanstack/react-query';
import { Badge, Card, DescriptionList, Hash, Link, Spinner } from '../../../components/ui';
import { api } from '../../../lib/api';
import { formatDate } from '../../../lib/format';
import { formatBase, formatHuman } from '../../../lib/money';
import { useTitle } from '../../../lib/router';
import type { Refund } from '../../../lib/types';
import { ApiErrorAlert } from '../shared/ApiErrorAlert';
import { TimelineCard } from '../shared/Timeline';
import { RefundActions } from './RefundActions';

const isOpen = (r: Refund) => r.state === 'pending' || r.state === 'requires_funding';

/** One refund: its figures, its actions while open, and its timeline. */
export function RefundDetailPage({ id }: { id: string }) {
  useTitle('Refund');
  const refund = useQuery({
    queryKey: ['refund', id],
    queryFn: () => api.get<Refund>(`/v1/refunds/${encodeURIComponent(id)}`),
    refetchInterval: (q) => (q.state.data && isOpen(q.state.data) ? 3_000 : false),
  });
  if (refund.isPending) return <div className="page"><Spinner label="Loading refund" /></div>;
  if (refund.isError) {
    return (
      <div className="page">
        <Link href="/dashboard/refunds" className="back-link">← Refunds</Link>
        <ApiErrorAlert title="Could not load the refund" error={refund.error} />
      </div>
    );
  }
  const r = refund.data;
  return (
    <div className="page">
      <Link href="/dashboard/refunds" className="back-link">← Refunds</Link>
      <div className="page-head">
        <div>
          <p className="eyebrow">Refund</p>
          <h1 className="page-title amount-title">{formatHuman(r.amount)} <span className="muted">USDC</span> <Badge state={r.state} /></h1>
        </div>
        <div className="page-actions"><RefundActions refund={r} /></div>
      </div>
      <Card title="Details">
        <DescriptionList
          items={[
            ['Refund ID', <Hash key="id" value={r.id} />],
            ['Order', <Link key="o" href={`/dashboard/orders/${encodeURIComponent(r.order_id)}`} className="mono-soft">{r.order_id}</Link>],
            ['From reserve', `${formatBase(r.reserve_portion)} USDC`],
            ['Needs funding', `${formatBase(r.funding_required)} USDC`],
            ['Reason', r.reason ?? '—'],
            ['Transaction', r.tx_hash ? <Hash key="tx" value={r.tx_hash} head={10} tail={8} /> : '—'],
            ['Created', formatDate(r.created_at)],
          ]}
        />
      </Card>
      <TimelineCard kind="refunds" id={r.id} live={isOpen(r)} />
    </div>
  );
}
