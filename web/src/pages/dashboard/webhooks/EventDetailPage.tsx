import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Badge, Button, Card, DescriptionList, Hash, Link, SkeletonRows } from '../../../components/ui';
import { Table } from '../../../components/Table';
import { api } from '../../../lib/api';
import { formatDate, formatShortDate } from '../../../lib/format';
import { useTitle } from '../../../lib/router';
import type { Delivery, WebhookEvent } from '../../../lib/types';
import { ApiErrorAlert } from '../shared/ApiErrorAlert';
import { deliveryHref } from './DeliveriesCard';
import { eventObjectHref } from './event-object-href';

type EventDetail = WebhookEvent & { deliveries: Delivery[] };
type Endpoint = { id: string; url: string };

export const eventHref = (id: string) => `/dashboard/events/${encodeURIComponent(id)}`;

/** One event: what it carried, the object it is about, and its delivery to each subscribed endpoint, each resendable. */
export function EventDetailPage({ id }: { id: string }) {
  useTitle('Event');
  const qc = useQueryClient();
  const event = useQuery({ queryKey: ['event', id], queryFn: () => api.get<EventDetail>(`/v1/events/${encodeURIComponent(id)}`), refetchInterval: 5_000 });
  const resend = useMutation({
    mutationFn: (deliveryId: string) => api.post(`/v1/webhooks/deliveries/${encodeURIComponent(deliveryId)}/redeliver`),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['event', id] }),
  });
  const ev = event.data;
  const object = ev?.data?.object;
  const objectHref = eventObjectHref(object);
  const objectId = String(object?.id ?? object?.endpoint_id ?? '—');
  return (
    <div className="page">
      <Link href="/dashboard/events" className="back-link">← Events</Link>
      <div className="page-head">
        <div>
          <p className="eyebrow">Event</p>
          <h1 className="page-title mono-title">{ev?.type ?? id}</h1>
        </div>
      </div>
      {resend.isSuccess && (
        <div className="banner-gap">
          <Alert tone="success" title="Queued again">A new attempt of this delivery is on its way. <Link href={deliveryHref(resend.variables)}>Inspect the delivery</Link></Alert>
        </div>
      )}
      {resend.isError && <ApiErrorAlert title="Could not resend" error={resend.error} />}
      {event.isError ? <ApiErrorAlert title="Could not load this event" error={event.error} /> : !ev ? (
        <Card><table className="table"><tbody><SkeletonRows cols={2} rows={4} /></tbody></table></Card>
      ) : (
        <>
          <Card title="Event">
            <DescriptionList
              items={[
                ['Type', <span key="t" className="mono-soft strong">{ev.type}</span>],
                ['Event ID', <Hash key="id" value={ev.id} />],
                ['Created', formatDate(ev.created_at)],
                ['Object', objectHref ? <Link key="o" href={objectHref} className="mono-soft">{objectId}</Link> : <span key="o" className="mono-soft">{objectId}{object?.test === true ? ' (test sample: no such object)' : ''}</span>],
              ]}
            />
          </Card>
          <Card title="Payload">
            <pre className="code-block" aria-label="Payload">{JSON.stringify(ev.data, null, 2)}</pre>
          </Card>
          <EventDeliveries deliveries={ev.deliveries} resending={resend.isPending ? resend.variables : null} onResend={(d) => resend.mutate(d)} />
        </>
      )}
    </div>
  );
}

function EventDeliveries({ deliveries, resending, onResend }: { deliveries: Delivery[]; resending: string | null; onResend: (id: string) => void }) {
  const endpoints = useQuery({ queryKey: ['webhooks', 'all-urls'], queryFn: () => api.get<{ data: Endpoint[] }>('/v1/webhooks/endpoints?limit=100'), enabled: deliveries.length > 0 });
  const urlOf = (endpointId: string) => endpoints.data?.data.find((e) => e.id === endpointId)?.url ?? endpointId;
  return (
    <Card title="Deliveries" padded={false}>
      {deliveries.length === 0 ? (
        <div className="card-body empty-inline">No endpoint was subscribed to this event type, so it was not sent anywhere.</div>
      ) : (
        <Table label="Deliveries">
          <thead><tr><th scope="col">Endpoint</th><th scope="col">Status</th><th scope="col" className="num">Attempts</th><th scope="col" className="num">Response</th><th scope="col">Created</th><th scope="col"><span className="sr-only">Actions</span></th></tr></thead>
          <tbody>
            {deliveries.map((d) => (
              <tr key={d.id}>
                <td><Link href={deliveryHref(d.id)} className="mono-soft">{urlOf(d.endpoint_id)}</Link></td>
                <td><Badge state={d.state ?? 'pending'} /></td>
                <td className="num" data-testid="delivery-attempts">{d.attempts ?? '—'}</td>
                <td className="num" title={d.last_error ?? undefined}>{d.last_status ?? (d.last_error ? 'No answer' : '—')}</td>
                <td className="muted">{formatShortDate(d.created_at)}</td>
                <td className="actions-cell">
                  <div className="row-actions">
                    <Link href={deliveryHref(d.id)} className="btn btn-ghost btn-sm"><span>Inspect</span></Link>
                    <Button size="sm" variant="ghost" loading={resending === d.id} onClick={() => onResend(d.id)}>Resend</Button>
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </Card>
  );
}
