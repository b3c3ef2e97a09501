import { useState, type FormEvent } from 'react';
import { Clip, Card, Empty, Field, Link, Select, SkeletonRows } from '../../../components/ui';
import type { RequestLog } from '../../../lib/dx-types';
import { formatDate, formatShortDate } from '../../../lib/format';
import { navigate, useTitle } from '../../../lib/router';
import { ApiErrorAlert } from '../shared/ApiErrorAlert';
import { Pager, usePaged } from '../shared/paging';
import { RequestLogDetail } from './RequestLogDetail';
import { Table } from '../../../components/Table';

export const logHref = (requestId: string) => `/dashboard/developers/logs/${encodeURIComponent(requestId)}`;

const METHODS = ['', 'GET', 'POST', 'DELETE'].map((m) => ({ value: m, label: m || 'Any method' }));

/** Developers → Logs: the platform's recent API requests, searchable by request id; one entry when given. */
export function RequestLogsPage({ requestId }: { requestId: string | null }) {
  useTitle(requestId ? 'Request' : 'Logs');
  return (
    <div className="page">
      <Link href={requestId ? '/dashboard/developers/logs' : '/dashboard/developers'} className="back-link">{requestId ? '← Logs' : '← Developers'}</Link>
      {requestId ? <RequestLogDetail requestId={requestId} /> : <LogList />}
    </div>
  );
}

function LogList() {
  const [search, setSearch] = useState('');
  const [filters, setFilters] = useState({ method: '', status: '', path: '' });
  const set = (k: keyof typeof filters) => (e: { target: { value: string } }) => setFilters((f) => ({ ...f, [k]: e.target.value }));
  const paged = usePaged<RequestLog>('request_logs', '/v1/developers/request_logs', { method: filters.method || undefined, status: filters.status.trim() || undefined, path: filters.path.trim() || undefined });
  const find = (e: FormEvent) => {
    e.preventDefault();
    if (search.trim()) navigate(logHref(search.trim()));
  };
  return (
    <>
      <div className="page-head"><h1 className="page-title">Logs</h1></div>
      <form className="log-search" role="search" aria-label="Find a request" onSubmit={find}>
        <Field label="Request ID" name="request_id" value={search} onChange={(e) => setSearch(e.target.value)} placeholder="req_…" spellCheck={false} />
        <button type="submit" className="btn btn-secondary btn-md"><span>Find</span></button>
      </form>
      <div className="log-search" role="group" aria-label="Filter requests">
        <Select label="Method" name="method" value={filters.method} onChange={set('method')} options={METHODS} />
        <Field label="Status" name="status" inputMode="numeric" value={filters.status} onChange={set('status')} placeholder="e.g. 400" />
        <Field label="Path" name="path" value={filters.path} onChange={set('path')} placeholder="/v1/orders" spellCheck={false} />
      </div>
      <Card padded={false}>
        {paged.query.isError ? (
          <div className="card-body"><ApiErrorAlert title="Could not load the request log" error={paged.query.error} /></div>
        ) : !paged.query.isPending && paged.rows.length === 0 ? (
          <Empty title="No requests">API requests made with your keys or this dashboard appear here.</Empty>
        ) : (
          <Table label="Requests">
              <thead><tr><th scope="col">Status</th><th scope="col">Request</th><th scope="col">Request ID</th><th scope="col">Error</th><th scope="col" className="num">Duration</th><th scope="col">Time</th></tr></thead>
              <tbody>
                {paged.query.isPending ? <SkeletonRows cols={6} /> : paged.rows.map((l) => (
                  <tr key={l.request_id}>
                    <td><span className={`badge ${l.status >= 400 ? 'badge-red' : 'badge-green'}`}>{l.status}</span></td>
                    <td><Clip mono text={`${l.method} ${l.path}`} /></td>
                    <td><Link href={logHref(l.request_id)} className="mono-soft cell-clip">{l.request_id}</Link></td>
                    <td><Clip mono text={l.error_code ?? '—'} /></td>
                    <td className="num">{l.duration_ms} ms</td>
                    <td className="muted">{formatShortDate(l.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </Table>
        )}
        <Pager page={paged.page} hasPrev={paged.hasPrev} hasNext={paged.hasNext} onPrev={paged.prev} onNext={paged.next} count={paged.rows.length} />
      </Card>
    </>
  );
}
