import { useState } from 'react';
import { Clip, Card, Empty, Link, Select, SkeletonRows } from '../../../components/ui';
import { formatShortDate } from '../../../lib/format';
import { useTitle } from '../../../lib/router';
import { EVENT_TYPES, type WebhookEvent } from '../../../lib/types';
import { ApiErrorAlert } from '../shared/ApiErrorAlert';
import { Pager, usePaged } from '../shared/paging';
import { Table } from '../../../components/Table';
import { eventHref } from './EventDetailPage';
import { eventObjectHref } from './event-object-href';

const OUTCOMES = [
  { value: '', label: 'Any outcome' },
  { value: 'delivered', label: 'Delivered' },
  { value: 'failed', label: 'Failed' },
  { value: 'pending', label: 'Pending' },
];

export function EventsPage() {
  useTitle('Events');
  const [type, setType] = useState('');
  const [outcome, setOutcome] = useState('');
  const paged = usePaged<WebhookEvent>('events', '/v1/events', { type: type || undefined, delivery_status: outcome || undefined });
  return (
    <div className="page">
      <div className="page-head">
        <h1 className="page-title">Events</h1>
      </div>
      <div className="toolbar filter-select">
        <Select label="Event type" name="type" value={type} onChange={(e) => setType(e.target.value)} options={[{ value: '', label: 'All types' }, ...EVENT_TYPES.map((t) => ({ value: t, label: t }))]} />
        <Select label="Delivery outcome" name="delivery_status" value={outcome} onChange={(e) => setOutcome(e.target.value)} options={OUTCOMES} />
      </div>
      <Card padded={false}>
        {paged.query.isError ? (
          <div className="card-body"><ApiErrorAlert title="Could not load events" error={paged.query.error} /></div>
        ) : !paged.query.isPending && paged.rows.length === 0 ? (
          <Empty title="No events">Events are recorded as orders, refunds and merchants change state.</Empty>
        ) : (
          <Table label="Events">
              <thead><tr><th scope="col">Type</th><th scope="col">Event ID</th><th scope="col">Object</th><th scope="col">Created</th></tr></thead>
              <tbody>
                {paged.query.isPending ? <SkeletonRows cols={4} /> : paged.rows.map((ev) => (
                  <tr key={ev.id}>
                    <td><span className="mono-soft strong">{ev.type}</span></td>
                    <td><Link href={eventHref(ev.id)} className="mono-soft cell-clip">{ev.id}</Link></td>
                    <td><ObjectCell object={ev.data?.object} /></td>
                    <td className="muted">{formatShortDate(ev.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </Table>
        )}
        <Pager page={paged.page} hasPrev={paged.hasPrev} hasNext={paged.hasNext} onPrev={paged.prev} onNext={paged.next} count={paged.rows.length} />
      </Card>
    </div>
  );
}

/** The event's object id, linked to its dashboard page when it has one (a test event's sample has none). */
function ObjectCell({ object }: { object: Record<string, unknown> | undefined }) {
  const id = String(object?.id ?? '—');
  const href = eventObjectHref(object);
  return href ? <Link href={href} className="mono-soft cell-clip">{id}</Link> : <Clip mono text={id} />;
}
