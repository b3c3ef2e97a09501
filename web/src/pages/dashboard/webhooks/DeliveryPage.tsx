import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Badge, Button, Card, DescriptionList, Hash, Link, SkeletonRows } from '../../../components/ui';
import { api } from '../../../lib/api';
import type { DeliveryAttempt, DeliveryDetail, HttpHeaders } from '../../../lib/dx-types';
import { formatDate } from '../../../lib/format';
import { useTitle } from '../../../lib/router';
import { ApiErrorAlert } from '../shared/ApiErrorAlert';

/** The delivery inspector: every attempt's request and response, the error, the duration, the next retry. */
export function DeliveryPage({ id }: { id: string }) {
  useTitle('Webhook delivery');
  const qc = useQueryClient();
  const delivery = useQuery({ queryKey: ['delivery', id], queryFn: () => api.get<DeliveryDetail>(`/v1/webhooks/deliveries/${encodeURIComponent(id)}`), refetchInterval: 3_000 });
  const resend = useMutation({
    mutationFn: () => api.post(`/v1/webhooks/deliveries/${encodeURIComponent(id)}/redeliver`),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['delivery', id] }),
  });
  const d = delivery.data;
  const back = d?.endpoint_id ? `/dashboard/webhooks/${encodeURIComponent(d.endpoint_id)}` : '/dashboard/webhooks';
  return (
    <div className="page">
      <Link href={back} className="back-link">← Endpoint</Link>
      <div className="page-head">
        <div>
          <p className="eyebrow">Webhook delivery</p>
          <h1 className="page-title mono-title">{d?.event_type ?? d?.event_id ?? id}</h1>
        </div>
        <div className="page-actions">
          <Button variant="primary" loading={resend.isPending} disabled={!d} onClick={() => resend.mutate()}>Resend</Button>
        </div>
      </div>
      {resend.isSuccess && <div className="banner-gap"><p role="status" className="muted">Queued again; the new attempt appears below.</p></div>}
      {resend.isError && <ApiErrorAlert error={resend.error} />}
      {delivery.isError ? <ApiErrorAlert title="Could not load this delivery" error={delivery.error} /> : !d ? (
        <Card><table className="table"><tbody><SkeletonRows cols={2} rows={4} /></tbody></table></Card>
      ) : (
        <>
          <Card title="Delivery">
            <DescriptionList
              items={[
                ['Status', <Badge key="s" state={d.status ?? d.state ?? 'pending'} />],
                ['Event', <Hash key="e" value={d.event_id} />],
                ['Endpoint', d.url ?? d.endpoint_id ?? '—'],
                ['Attempts', String(d.attempt_history.length)],
                ['Next retry', d.next_attempt_at ? formatDate(d.next_attempt_at) : '—'],
                ['Delivery ID', <Hash key="id" value={d.id} />],
              ]}
            />
          </Card>
          <Card title="Attempts">
            {d.attempt_history.length === 0 ? <p className="muted">Not attempted yet.</p> : d.attempt_history.map((a, i) => <AttemptView key={i} n={i + 1} attempt={a} />).reverse()}
          </Card>
        </>
      )}
    </div>
  );
}

function AttemptView({ n, attempt: a }: { n: number; attempt: DeliveryAttempt }) {
  const outcome = a.response ? `HTTP ${a.response.status}` : 'No answer';
  return (
    <article className="attempt" aria-label={`Attempt ${n}`}>
      <h3>Attempt {n} · {outcome} · {formatDate(a.attempted_at)}</h3>
      <DescriptionList
        items={[
          ['URL', a.request.url ?? '—'],
          ['Duration', a.duration_ms === null ? '—' : `${a.duration_ms} ms`],
          ['Response status', a.response ? String(a.response.status) : '—'],
          ...(a.error ? [['Error', a.error] as [string, string]] : []),
        ]}
      />
      <Block label="Request headers" text={headerText(a.request.headers)} />
      <Block label="Request body" text={pretty(a.request.body)} />
      {a.response && <Block label="Response headers" text={headerText(a.response.headers)} />}
      {a.response && <Block label="Response body (first 4 KB)" text={a.response.body || '(empty)'} />}
    </article>
  );
}

function Block({ label, text }: { label: string; text: string }) {
  return (
    <figure className="attempt-block">
      <figcaption className="field-label">{label}</figcaption>
      <pre className="code-block" aria-label={label}>{text}</pre>
    </figure>
  );
}

function headerText(h: HttpHeaders | null): string {
  return Object.entries(h ?? {}).map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : v}`).join('\n') || '(none)';
}

function pretty(body: string | null): string {
  if (!body) return '(empty)';
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}
