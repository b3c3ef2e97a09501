import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Alert, Button, Card, Empty, Field, Link, Modal, Mono, SecretReveal, SkeletonRows } from '../../../components/ui';
import { api } from '../../../lib/api';
import { formatDate, formatShortDate } from '../../../lib/format';
import { navigate, useTitle } from '../../../lib/router';
import type { List, WebhookEndpoint } from '../../../lib/types';
import { paramError } from '../shared/forms';
import { EndpointStatus } from './EndpointStatus';
import { describeEvents, EventPicker, useEventChoice } from './EventPicker';
import { ApiErrorAlert } from '../shared/ApiErrorAlert';
import { Table } from '../../../components/Table';

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
          <div className="card-body"><ApiErrorAlert title="Could not load endpoints" error={endpoints.error} /></div>
        ) : !endpoints.isPending && endpoints.data.data.length === 0 ? (
          <Empty title="No webhook endpoints" action={<Button variant="primary" onClick={() => setCreating(true)}>Add endpoint</Button>}>
            Trisettle sends signed events (order.confirmed, refund.completed, …) to your server as they happen.
          </Empty>
        ) : (
          <Table label="Webhook endpoints" className="table-click">
              <thead><tr><th scope="col">URL</th><th scope="col">Events</th><th scope="col">Status</th><th scope="col">Created</th></tr></thead>
              <tbody>
                {endpoints.isPending ? <SkeletonRows cols={4} rows={3} /> : endpoints.data.data.map((ep) => (
                  <tr key={ep.id} onClick={() => navigate(`/dashboard/webhooks/${ep.id}`)}>
                    <td><Link href={`/dashboard/webhooks/${ep.id}`} className="mono-soft">{ep.url}</Link></td>
                    <td className="muted events-cell">{describeEvents(ep.subscribed_events)}</td>
                    <td><EndpointStatus status={ep.status} /></td>
                    <td className="muted">{formatShortDate(ep.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </Table>
        )}
      </Card>
      {creating && <NewEndpointModal onClose={() => setCreating(false)} />}
    </div>
  );
}

function NewEndpointModal({ onClose }: { onClose: () => void }) {
  const qc = useQueryClient();
  const [url, setUrl] = useState('');
  const choice = useEventChoice(['order.confirmed', 'order.failed', 'refund.completed']);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [created, setCreated] = useState<WebhookEndpoint | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const v: Record<string, string> = {};
    if (!/^https?:\/\/\S+$/.test(url.trim())) v.url = 'A full https:// address of your server.';
    if (choice.empty) v.events = 'Choose at least one event.';
    setErrors(v);
    if (Object.keys(v).length) return;
    setBusy(true);
    setError(null);
    try {
      setCreated(await api.post<WebhookEndpoint>('/v1/webhooks/endpoints', { url: url.trim(), subscribed_events: choice.subscribed() }));
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
        <EventPicker choice={choice} error={errors.events} />
        <div className="slot">{error && <Alert tone="error">{error}</Alert>}</div>
        <div className="modal-actions">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" loading={busy}>Add endpoint</Button>
        </div>
      </form>
    </Modal>
  );
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
