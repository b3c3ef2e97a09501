import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Badge, Button, Card, Link, SkeletonRows } from '../../../components/ui';
import { api } from '../../../lib/api';
import { formatDate, formatShortDate } from '../../../lib/format';
import type { Delivery, List } from '../../../lib/types';
import { ApiErrorAlert } from '../shared/ApiErrorAlert';
import { Table } from '../../../components/Table';

export const deliveryHref = (id: string) => `/dashboard/webhooks/deliveries/${encodeURIComponent(id)}`;

/** An endpoint's deliveries, newest first, each linked to its inspector, with Redeliver. */
export function DeliveriesCard({ endpointId }: { endpointId: string }) {
  const qc = useQueryClient();
  const deliveries = useQuery({ queryKey: ['deliveries', endpointId], queryFn: () => api.get<List<Delivery>>(`/v1/webhooks/endpoints/${encodeURIComponent(endpointId)}/deliveries`), refetchInterval: 5_000 });
  const redeliver = useMutation({
    mutationFn: (deliveryId: string) => api.post(`/v1/webhooks/deliveries/${encodeURIComponent(deliveryId)}/redeliver`),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['deliveries', endpointId] }),
  });
  return (
    <>
      {redeliver.isError && <ApiErrorAlert error={redeliver.error} />}
      <Card title="Deliveries" padded={false}>
        {deliveries.isError ? (
          <div className="card-body"><ApiErrorAlert error={deliveries.error} /></div>
        ) : !deliveries.isPending && deliveries.data.data.length === 0 ? (
          <div className="card-body empty-inline">No deliveries yet. Events you subscribed to will appear here as they are sent.</div>
        ) : (
          <Table label="Deliveries">
              <thead><tr><th scope="col">Event</th><th scope="col">Status</th><th scope="col" className="num">Attempts</th><th scope="col" className="num">Response</th><th scope="col">Created</th><th scope="col"><span className="sr-only">Actions</span></th></tr></thead>
              <tbody>
                {deliveries.isPending ? <SkeletonRows cols={6} rows={3} /> : deliveries.data.data.map((d) => (
                  <tr key={d.id}>
                    <td><Link href={deliveryHref(d.id)} className="mono-soft">{d.event_type ?? d.event_id}</Link></td>
                    <td><Badge state={d.state ?? 'pending'} /></td>
                    <td className="num">{d.attempts ?? '—'}</td>
                    <td className="num" title={d.last_error ?? undefined}>{d.last_status ?? (d.last_error ? 'No answer' : '—')}</td>
                    <td className="muted">{formatShortDate(d.created_at)}</td>
                    <td className="actions-cell">
                      <div className="row-actions">
                        <Link href={deliveryHref(d.id)} className="btn btn-ghost btn-sm"><span>Inspect</span></Link>
                        <Button size="sm" variant="ghost" loading={redeliver.isPending && redeliver.variables === d.id} onClick={() => redeliver.mutate(d.id)}>Redeliver</Button>
                      </div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </Table>
        )}
      </Card>
    </>
  );
}
