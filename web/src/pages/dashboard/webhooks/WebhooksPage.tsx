import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Alert, Badge, Button, Card, DescriptionList, Empty, Field, Hash, Link, Modal, Mono, SecretReveal, SkeletonRows } from '../../../components/ui';
import { api } from '../../../lib/api';
import { formatDate } from '../../../lib/format';
import { navigate, useTitle } from '../../../lib/router';
import { ALL_EVENTS, EVENT_TYPES, type Delivery, type List, type WebhookEndpoint } from '../../../lib/types';
import { paramError } from '../shared/forms';

export function WebhooksPage() {
  useTitle('Webhooks');
  const endpoints = useQuery({ queryKey: ['webhooks'], queryFn: () => api.get<List<WebhookEndpoint>>('/v1/webhooks/endpoints') });
  const [creating, setCreating] = useState(false);
  return (
    <div className="page">
      <div className="page-head">
        <h1 className="page-title">Webhooks</h1>
        <div className="page-actions">
          <Link href="/dashboard/events" className="btn btn-secondary btn-md"><span>View events</span></Link>
          <Button variant="primary" onClick={() => setCreating(true)}>Add endpoint</Button>
        </div>
      </div>
      <DisabledBanner endpoints={endpoints.data?.data ?? []} />
      <Card padded={false}>
        {endpoints.isError ? (
          <div className="card-body"><Alert tone="error" title="Could not load endpoints">{endpoints.error.message}</Alert></div>
        ) : !endpoints.isPending && endpoints.data.data.length === 0 ? (
          <Empty title="No webhook endpoints" action={<Button variant="primary" onClick={() => setCreating(true)}>Add endpoint</Button>}>
            Trisettle sends signed events (order.confirmed, refund.completed, …) to your server as they happen.
          </Empty>
        ) : (
          <div className="table-scroll">
            <table className="table table-click" aria-label="Webhook endpoints">
              <thead><tr><th scope="col">URL</th><th scope="col">Events</th><th scope="col">Status</th><th scope="col">Created</th></tr></thead>
              <tbody>
                {endpoints.isPending ? <SkeletonRows cols={4} rows={3} /> : endpoints.data.data.map((ep) => (
                  <tr key={ep.id} onClick={() => navigate(`/dashboard/webhooks/${ep.id}`)}>
                    <td><Link href={`/dashboard/webhooks/${ep.id}`} className="mono-soft">{ep.url}</Link></td>
                    <td className="muted events-cell">{describeEvents(ep.subscribed_events)}</td>
                    <td><Badge state={ep.status}>{ep.status === 'enabled' ? 'Enabled' : 'Disabled'}</Badge></td>
                    <td className="muted nowrap">{formatDate(ep.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Card>
      {creating && <NewEndpointModal onClose={() => setCreating(false)} />}
    </div>
  );
}

function NewEndpointModal({ onClose }: { onClose: () => void }) {
  const qc = useQueryClient();
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<Set<string>>(new Set(['order.confirmed', 'order.failed', 'refund.completed']));
  const [all, setAll] = useState(false);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [created, setCreated] = useState<WebhookEndpoint | null>(null);
  const [busy, setBusy] = useState(false);
  const toggle = (t: string) => setEvents((s) => {
    const n = new Set(s);
    if (n.has(t)) n.delete(t);
    else n.add(t);
    return n;
  });
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const v: Record<string, string> = {};
    if (!/^https?:\/\/\S+$/.test(url.trim())) v.url = 'A full https:// address of your server.';
    if (!all && events.size === 0) v.events = 'Choose at least one event.';
    setErrors(v);
    if (Object.keys(v).length) return;
    setBusy(true);
    setError(null);
    try {
      setCreated(await api.post<WebhookEndpoint>('/v1/webhooks/endpoints', { url: url.trim(), subscribed_events: all ? [ALL_EVENTS] : EVENT_TYPES.filter((t) => events.has(t)) }));
      await qc.invalidateQueries({ queryKey: ['webhooks'] });
    } catch (err) {
      const p = paramError(err, ['url']);
      if (p.field) setErrors(p.field);
      else setError(p.general ?? null);
    } finally {
      setBusy(false);
    }
  };
  if (created) {
    return (
      <Modal title="Endpoint added" onClose={onClose} footer={<Button variant="primary" onClick={onClose}>Done</Button>}>
        <p className="muted">Verify each delivery: <Mono>X-Webhook-Signature: v1=HMAC-SHA256(secret, timestamp + "." + body)</Mono>.</p>
        <SecretReveal label="Signing secret" value={created.secret ?? ''} warning="Shown only now. Store it with your server's secrets." />
      </Modal>
    );
  }
  return (
    <Modal title="Add a webhook endpoint" onClose={onClose} wide>
      <form onSubmit={submit} noValidate>
        <Field label="Endpoint URL" name="url" value={url} onChange={(e) => setUrl(e.target.value)} error={errors.url} placeholder="https://api.example.com/trisettle/webhooks" spellCheck={false} />
        <fieldset className="event-picker">
          <legend>Events to send</legend>
          <div className="check-row">
            <input id="ev-all" type="checkbox" checked={all} onChange={(e) => setAll(e.target.checked)} />
            <label htmlFor="ev-all">Every event type, including ones added later</label>
          </div>
          <div className="event-grid">
            {EVENT_TYPES.map((t) => (
              <div key={t} className="check-row">
                <input id={`ev-${t}`} type="checkbox" checked={all || events.has(t)} disabled={all} onChange={() => toggle(t)} />
                <label htmlFor={`ev-${t}`} className="mono-soft">{t}</label>
              </div>
            ))}
          </div>
          <p className={errors.events ? 'field-error' : 'field-hint'}>{errors.events ?? '\u00a0'}</p>
        </fieldset>
        <div className="slot">{error && <Alert tone="error">{error}</Alert>}</div>
        <div className="modal-actions">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" loading={busy}>Add endpoint</Button>
        </div>
      </form>
    </Modal>
  );
}

export function WebhookDetailPage({ id }: { id: string }) {
  useTitle('Webhook endpoint');
  const qc = useQueryClient();
  const endpoint = useQuery({ queryKey: ['webhooks', id], queryFn: () => api.get<WebhookEndpoint>(`/v1/webhooks/endpoints/${encodeURIComponent(id)}`) });
  const deliveries = useQuery({ queryKey: ['deliveries', id], queryFn: () => api.get<List<Delivery>>(`/v1/webhooks/endpoints/${encodeURIComponent(id)}/deliveries`), refetchInterval: 5_000 });
  const [confirmDelete, setConfirmDelete] = useState(false);
  const del = useMutation({
    mutationFn: () => api.del(`/v1/webhooks/endpoints/${encodeURIComponent(id)}`),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['webhooks'] });
      navigate('/dashboard/webhooks');
    },
  });
  const redeliver = useMutation({
    mutationFn: (deliveryId: string) => api.post(`/v1/webhooks/deliveries/${encodeURIComponent(deliveryId)}/redeliver`),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['deliveries', id] }),
  });
  const roll = useMutation({
    mutationFn: () => api.post<WebhookEndpoint>(`/v1/webhooks/endpoints/${encodeURIComponent(id)}/roll-secret`),
    onSuccess: async (e) => {
      setRolled(e.secret ?? null);
      await qc.invalidateQueries({ queryKey: ['webhooks', id] });
    },
  });
  const [rolled, setRolled] = useState<string | null>(null);
  const ep = endpoint.data;
  if (endpoint.isError) {
    return (
      <div className="page">
        <Link href="/dashboard/webhooks" className="back-link">← Webhooks</Link>
        <Alert tone="error" title="Could not load this endpoint">{endpoint.error.message}</Alert>
      </div>
    );
  }
  return (
    <div className="page">
      <Link href="/dashboard/webhooks" className="back-link">← Webhooks</Link>
      <div className="page-head">
        <div>
          <p className="eyebrow">Webhook endpoint</p>
          <h1 className="page-title mono-title">{ep?.url ?? '…'}</h1>
        </div>
        <div className="page-actions">
          <Button loading={roll.isPending} onClick={() => roll.mutate()}>Roll secret</Button>
          <Button variant="danger" onClick={() => setConfirmDelete(true)}>Delete endpoint</Button>
        </div>
      </div>
      {ep?.status === 'disabled' && (
        <div className="banner-gap">
          <Alert tone="warning" title="This endpoint is disabled: nothing is sent to it">
            {ep.disabled_reason ?? 'It was disabled.'} Events keep being recorded; once your server answers again, create a new endpoint
            (or ask support to re-enable this one) and use POST /v1/webhooks/endpoints/{ep.id}/replay to re-deliver the missed range.
          </Alert>
        </div>
      )}
      {ep && (
        <Card title="Endpoint">
          <DescriptionList
            items={[
              ['Status', <Badge key="s" state={ep.status}>{ep.status === 'enabled' ? 'Enabled' : 'Disabled'}</Badge>],
              ['Events', describeEvents(ep.subscribed_events)],
              ['ID', <Hash key="id" value={ep.id} />],
              ['Created', formatDate(ep.created_at)],
              ...(ep.disabled_reason ? [['Disabled because', ep.disabled_reason] as [string, string]] : []),
              ...(ep.previous_secret_expires_at ? [['Old secret valid until', formatDate(ep.previous_secret_expires_at)] as [string, string]] : []),
            ]}
          />
        </Card>
      )}
      {roll.isError && <Alert tone="error">{roll.error.message}</Alert>}
      {redeliver.isError && <Alert tone="error">{redeliver.error.message}</Alert>}
      <Card title="Deliveries" padded={false}>
        {deliveries.isError ? (
          <div className="card-body"><Alert tone="error">{deliveries.error.message}</Alert></div>
        ) : !deliveries.isPending && deliveries.data.data.length === 0 ? (
          <div className="card-body empty-inline">No deliveries yet. Events you subscribed to will appear here as they are sent.</div>
        ) : (
          <div className="table-scroll">
            <table className="table" aria-label="Deliveries">
              <thead><tr><th scope="col">Event</th><th scope="col">Status</th><th scope="col" className="num">Attempts</th><th scope="col" className="num">Response</th><th scope="col">Created</th><th scope="col"><span className="sr-only">Actions</span></th></tr></thead>
              <tbody>
                {deliveries.isPending ? <SkeletonRows cols={6} rows={3} /> : deliveries.data.data.map((d) => (
                  <tr key={d.id}>
                    <td><span className="mono-soft">{d.event_type ?? d.event_id}</span></td>
                    <td><Badge state={d.state ?? 'pending'} /></td>
                    <td className="num">{d.attempts ?? '—'}</td>
                    <td className="num" title={d.last_error ?? undefined}>{d.last_status ?? (d.last_error ? 'No answer' : '—')}</td>
                    <td className="muted nowrap">{formatDate(d.created_at)}</td>
                    <td className="actions-cell">
                      <Button size="sm" variant="ghost" loading={redeliver.isPending && redeliver.variables === d.id} onClick={() => redeliver.mutate(d.id)}>Redeliver</Button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Card>
      {rolled && (
        <Modal title="New signing secret" onClose={() => setRolled(null)} footer={<Button variant="primary" onClick={() => setRolled(null)}>I have stored it</Button>}>
          <SecretReveal label="Signing secret" value={rolled} warning="Shown only now. Deliveries are signed with both the new and the old secret for a while, so you can switch without dropping events." />
        </Modal>
      )}
      {confirmDelete && (
        <Modal title="Delete this endpoint?" onClose={() => setConfirmDelete(false)} footer={<><Button onClick={() => setConfirmDelete(false)}>Cancel</Button><Button variant="danger" loading={del.isPending} onClick={() => del.mutate()}>Delete</Button></>}>
          <p>Trisettle stops sending events to <Mono>{ep?.url ?? id}</Mono> at once.</p>
          {del.isError && <Alert tone="error">{del.error.message}</Alert>}
        </Modal>
      )}
    </div>
  );
}

function describeEvents(events: string[]): string {
  if (events.includes(ALL_EVENTS)) return 'All events';
  return events.length > 3 ? `${events.slice(0, 3).join(', ')} +${events.length - 3} more` : events.join(', ');
}

/** Endpoints the service disabled (5 days failing without a success, or a 410): said once, above the list. */
function DisabledBanner({ endpoints }: { endpoints: WebhookEndpoint[] }) {
  const disabled = endpoints.filter((ep) => ep.status === 'disabled');
  if (disabled.length === 0) return null;
  return (
    <div className="banner-gap">
      <Alert tone="warning" title={disabled.length === 1 ? '1 endpoint is disabled' : `${disabled.length} endpoints are disabled`}>
        Nothing is sent to a disabled endpoint.{' '}
        {disabled.map((ep, i) => (
          <span key={ep.id}>{i > 0 ? ', ' : ''}<Link href={`/dashboard/webhooks/${ep.id}`} className="mono-soft">{ep.url}</Link>{ep.disabled_reason ? ` (${ep.disabled_reason})` : ''}</span>
        ))}
        . A webhook_endpoint.disabled event was sent to your other endpoints.
      </Alert>
    </div>
  );
}
