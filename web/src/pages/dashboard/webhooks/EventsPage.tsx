import { Fragment, useState } from 'react';
import { Clip, Card, Empty, Select, SkeletonRows } from '../../../components/ui';
import { formatDate, formatShortDate } from '../../../lib/format';
import { useTitle } from '../../../lib/router';
import { EVENT_TYPES, type WebhookEvent } from '../../../lib/types';
import { ApiErrorAlert } from '../shared/ApiErrorAlert';
import { Pager, usePaged } from '../shared/paging';
import { Table } from '../../../components/Table';

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
  const [open, setOpen] = useState<string | null>(null);
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
          <Table label="Events" className="table-click">
              <thead><tr><th scope="col">Type</th><th scope="col">Event ID</th><th scope="col">Object</th><th scope="col">Created</th></tr></thead>
              <tbody>
                {paged.query.isPending ? <SkeletonRows cols={4} /> : paged.rows.map((ev) => (
                  <Fragment key={ev.id}>
                    <tr onClick={() => setOpen(open === ev.id ? null : ev.id)} aria-expanded={open === ev.id}>
                      <td><span className="mono-soft strong">{ev.type}</span></td>
                      <td><Clip mono text={ev.id} /></td>
                      <td><Clip mono text={String(ev.data?.object?.id ?? '—')} /></td>
                      <td className="muted">{formatShortDate(ev.created_at)}</td>
                    </tr>
                    {open === ev.id && (
                      <tr className="row-detail"><td colSpan={4}><pre className="code-block">{JSON.stringify(ev, null, 2)}</pre></td></tr>
                    )}
                  </Fragment>
                ))}
              </tbody>
            </Table>
        )}
        <Pager page={paged.page} hasPrev={paged.hasPrev} hasNext={paged.hasNext} onPrev={paged.prev} onNext={paged.next} count={paged.rows.length} />
      </Card>
    </div>
  );
}
