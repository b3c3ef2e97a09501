import { useQuery } from '@tanstack/react-query';
import { Badge, Card, Hash, Link } from '../../../components/ui';
import { api } from '../../../lib/api';
import type { TimelineDelivery, TimelineEntry } from '../../../lib/dx-types';
import { formatDate } from '../../../lib/format';
import { ApiErrorAlert } from './ApiErrorAlert';

type Kind = 'orders' | 'refunds' | 'merchants';

/**
 * An object's history, oldest first: each state change, every event with its deliveries (linked to the
 * inspector), and every on-chain transaction (linked to the explorer when the chain has one).
 */
export function TimelineCard({ kind, id, live = false }: { kind: Kind; id: string; live?: boolean }) {
  const timeline = useQuery({
    queryKey: ['timeline', kind, id],
    queryFn: () => api.get<{ data: TimelineEntry[] }>(`/v1/${kind}/${encodeURIComponent(id)}/timeline`),
    refetchInterval: live ? 4_000 : false,
  });
  return (
    <Card title="Timeline">
      {timeline.isError ? <ApiErrorAlert error={timeline.error} /> : timeline.isPending ? <p className="muted">Loading…</p> : timeline.data.data.length === 0 ? (
        <p className="muted">Nothing has happened yet.</p>
      ) : (
        <ol className="timeline" aria-label="Timeline">
          {timeline.data.data.map((e, i) => <TimelineItem key={`${e.at}-${i}`} entry={e} />)}
        </ol>
      )}
    </Card>
  );
}

function TimelineItem({ entry: e }: { entry: TimelineEntry }) {
  const detail = e.description ?? e.detail;
  return (
    <li className="timeline-item" data-kind={e.kind}>
      <div className="timeline-head">
        <span className="timeline-title">{e.title}</span>
        <time className="muted" dateTime={e.at}>{formatDate(e.at)}</time>
      </div>
      {detail && <div className="muted">{detail}</div>}
      <div className="timeline-meta">
        {e.event_id && <span className="mono-soft">{e.event_type ?? 'event'} · {e.event_id}</span>}
        {e.tx_hash && <TxLink hash={e.tx_hash} explorer={e.explorer_url ?? null} />}
        {(e.deliveries ?? []).map((d) => <DeliveryChip key={d.id} d={d} />)}
      </div>
    </li>
  );
}

function TxLink({ hash, explorer }: { hash: string; explorer: string | null }) {
  return <span>Transaction <Hash value={hash} head={10} tail={6} href={explorer} /></span>;
}

function DeliveryChip({ d }: { d: TimelineDelivery }) {
  const state = d.status ?? d.state ?? 'pending';
  return (
    <Link href={`/dashboard/webhooks/deliveries/${encodeURIComponent(d.id)}`} className="mono-soft">
      <span>Delivery to {d.endpoint_url ?? d.url ?? d.endpoint_id ?? d.id} </span><Badge state={state} />
    </Link>
  );
}
