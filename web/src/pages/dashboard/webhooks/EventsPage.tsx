import { Fragment, useState } from 'react';
import { Alert, Card, Empty, Select, SkeletonRows } from '../../../components/ui';
import { formatDate } from '../../../lib/format';
import { useTitle } from '../../../lib/router';
import { EVENT_TYPES, type WebhookEvent } from '../../../lib/types';
import { Pager, usePaged } from '../shared/paging';

export function EventsPage() {
  useTitle('Events');
  const [type, setType] = useState('');
  const paged = usePaged<WebhookEvent>('events', '/v1/events', { type: type || undefined });
  const [open, setOpen] = useState<string | null>(null);
  return (
    <div className="page">
      <div className="page-head">
        <h1 className="page-title">Events</h1>
      </div>
      <div className="toolbar filter-select">
        <Select label="Event type" value={type} onChange={(e) => setType(e.target.value)} options={[{ value: '', label: 'All types' }, ...EVENT_TYPES.map((t) => ({ value: t, label: t }))]} />
      </div>
      <Card padded={false}>
        {paged.query.isError ? (
          <div className="card-body"><Alert tone="error" title="Could not load events">{paged.query.error.message}</Alert></div>
        ) : !paged.query.isPending && paged.rows.length === 0 ? (
          <Empty title="No events">Events are recorded as orders, refunds and merchants change state.</Empty>
        ) : (
          <div className="table-scroll">
            <table className="table table-click" aria-label="Events">
              <thead><tr><th scope="col">Type</th><th scope="col">Event ID</th><th scope="col">Object</th><th scope="col">Created</th></tr></thead>
              <tbody>
                {paged.query.isPending ? <SkeletonRows cols={4} /> : paged.rows.map((ev) => (
                  <Fragment key={ev.id}>
                    <tr onClick={() => setOpen(open === ev.id ? null : ev.id)} aria-expanded={open === ev.id}>
                      <td><span className="mono-soft strong">{ev.type}</span></td>
                      <td className="mono-soft">{ev.id}</td>
                      <td className="mono-soft">{String(ev.data?.object?.id ?? '—')}</td>
                      <td className="muted nowrap">{formatDate(ev.created_at)}</td>
                    </tr>
                    {open === ev.id && (
                      <tr className="row-detail"><td colSpan={4}><pre className="code-block">{JSON.stringify(ev, null, 2)}</pre></td></tr>
                    )}
                  </Fragment>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <Pager page={paged.page} hasPrev={paged.hasPrev} hasNext={paged.hasNext} onPrev={paged.prev} onNext={paged.next} count={paged.rows.length} />
      </Card>
    </div>
  );
}
