import { useQuery } from '@tanstack/react-query';
import { Card, DescriptionList, Hash, Mono } from '../../../components/ui';
import { api, ApiError } from '../../../lib/api';
import type { RequestLog } from '../../../lib/dx-types';
import { formatDate } from '../../../lib/format';
import { ApiErrorAlert } from '../shared/ApiErrorAlert';

function principalText(p: RequestLog['principal']): string {
  if (!p) return '—';
  if (typeof p === 'string') return p;
  return [p.type?.replace('_', ' '), p.key_id ?? p.user_id].filter(Boolean).join(' ');
}

function bodyText(b: unknown): string {
  if (b === undefined || b === null || b === '') return '(empty)';
  if (typeof b === 'string') {
    try {
      return JSON.stringify(JSON.parse(b), null, 2);
    } catch {
      return b;
    }
  }
  return JSON.stringify(b, null, 2);
}

/** One logged request: who made it, how it ended, and (for failures) the request and response bodies. */
export function RequestLogDetail({ requestId }: { requestId: string }) {
  const log = useQuery({ queryKey: ['request_log', requestId], queryFn: () => api.get<RequestLog>(`/v1/developers/request_logs/${encodeURIComponent(requestId)}`), retry: false });
  if (log.isError) {
    const missing = log.error instanceof ApiError && log.error.status === 404;
    return <ApiErrorAlert title={missing ? `No request ${requestId} in the log` : 'Could not load this request'} error={log.error} />;
  }
  const l = log.data;
  return (
    <>
      <div className="page-head">
        <div>
          <p className="eyebrow">Request</p>
          <h1 className="page-title mono-title">{l ? `${l.method} ${l.path}` : requestId}</h1>
        </div>
      </div>
      {!l ? <p className="muted">Loading…</p> : (
        <>
          <Card title="Summary">
            <DescriptionList
              items={[
                ['Status', <span key="s" className={`badge ${l.status >= 400 ? 'badge-red' : 'badge-green'}`}>{l.status}</span>],
                ['Request ID', <Hash key="r" value={l.request_id} />],
                ['Error code', l.error_code ? <Mono key="e">{l.error_code}</Mono> : '—'],
                ['Idempotency key', l.idempotency_key ? <Mono key="k">{l.idempotency_key}</Mono> : '—'],
                ['Made by', principalText(l.principal)],
                ['Duration', `${l.duration_ms} ms`],
                ['Time', formatDate(l.created_at)],
              ]}
            />
          </Card>
          {(l.request_body != null || l.response_body != null) && (
            <Card title="Bodies (secrets redacted)">
              <p className="field-label">Request body</p>
              <pre className="code-block" aria-label="Request body">{bodyText(l.request_body)}</pre>
              <p className="field-label">Response body</p>
              <pre className="code-block" aria-label="Response body">{bodyText(l.response_body)}</pre>
            </Card>
          )}
        </>
      )}
    </>
  );
}
