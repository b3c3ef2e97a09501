import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Alert, Button, Card, DescriptionList, Hash, Link, Modal, Mono, SecretReveal } from '../../../components/ui';
import { api } from '../../../lib/api';
import { formatDate } from '../../../lib/format';
import { navigate, useTitle } from '../../../lib/router';
import type { WebhookEndpoint } from '../../../lib/types';
import { ApiErrorAlert } from '../shared/ApiErrorAlert';
import { DeliveriesCard } from './DeliveriesCard';
import { EndpointEditModal } from './EndpointEditModal';
import { EndpointStatus } from './EndpointStatus';
import { describeEvents } from './EventPicker';
import { TestEventForm } from './TestEventForm';

type Endpoint = WebhookEndpoint & { description?: string | null };

function useEndpointActions(id: string) {
  const qc = useQueryClient();
  const path = `/v1/webhooks/endpoints/${encodeURIComponent(id)}`;
  const refresh = () => Promise.all([qc.invalidateQueries({ queryKey: ['webhooks'] }), qc.invalidateQueries({ queryKey: ['deliveries', id] })]);
  return {
    del: useMutation({ mutationFn: () => api.del(path), onSuccess: async () => { await refresh(); navigate('/dashboard/webhooks'); } }),
    roll: useMutation({ mutationFn: () => api.post<WebhookEndpoint>(`${path}/roll-secret`), onSuccess: refresh }),
    pause: useMutation({ mutationFn: (on: boolean) => api.post<WebhookEndpoint>(`${path}/${on ? 'pause' : 'resume'}`), onSuccess: refresh }),
  };
}

export function WebhookDetailPage({ id }: { id: string }) {
  useTitle('Webhook endpoint');
  const endpoint = useQuery({ queryKey: ['webhooks', id], queryFn: () => api.get<Endpoint>(`/v1/webhooks/endpoints/${encodeURIComponent(id)}`) });
  const { del, roll, pause } = useEndpointActions(id);
  const [modal, setModal] = useState<'edit' | 'delete' | null>(null);
  const [rolledSeen, setRolledSeen] = useState(false);
  const ep = endpoint.data;
  const status = String(ep?.status ?? '');
  if (endpoint.isError) {
    return (
      <div className="page">
        <Link href="/dashboard/webhooks" className="back-link">← Webhooks</Link>
        <ApiErrorAlert title="Could not load this endpoint" error={endpoint.error} />
      </div>
    );
  }
  const failed = [roll, pause].find((m) => m.isError)?.error;
  return (
    <div className="page">
      <Link href="/dashboard/webhooks" className="back-link">← Webhooks</Link>
      <div className="page-head">
        <div>
          <p className="eyebrow">Webhook endpoint</p>
          <h1 className="page-title mono-title">{ep?.url ?? '…'}</h1>
        </div>
        <div className="page-actions endpoint-actions">
          <Button disabled={!ep} onClick={() => setModal('edit')}>Edit</Button>
          {status !== 'disabled' && <Button loading={pause.isPending} disabled={!ep} onClick={() => pause.mutate(status !== 'paused')}>{status === 'paused' ? 'Resume' : 'Pause'}</Button>}
          <Button loading={roll.isPending} onClick={() => { setRolledSeen(false); roll.mutate(); }}>Roll secret</Button>
          <Button variant="danger" onClick={() => setModal('delete')}>Delete endpoint</Button>
        </div>
      </div>
      {status === 'disabled' && ep && (
        <div className="banner-gap">
          <Alert tone="warning" title="This endpoint is disabled: nothing is sent to it">
            {ep.disabled_reason ?? 'It was disabled.'} Events keep being recorded; once your server answers again, create a new endpoint
            (or ask support to re-enable this one) and use POST /v1/webhooks/endpoints/{ep.id}/replay to re-deliver the missed range.
          </Alert>
        </div>
      )}
      <TestEventForm endpointId={id} disabled={!ep} />
      {status === 'paused' && <div className="banner-gap"><Alert tone="info" title="Paused">Nothing is sent while paused; deliveries wait and go out when you resume.</Alert></div>}
      {failed && <ApiErrorAlert error={failed} />}
      {ep && (
        <Card title="Endpoint">
          <DescriptionList
            items={[
              ['Status', <EndpointStatus key="s" status={status} />],
              ['Description', ep.description || '—'],
              ['Events', describeEvents(ep.subscribed_events)],
              ['ID', <Hash key="id" value={ep.id} />],
              ['Created', formatDate(ep.created_at)],
              ...(ep.disabled_reason ? [['Disabled because', ep.disabled_reason] as [string, string]] : []),
              ...(ep.previous_secret_expires_at ? [['Old secret valid until', formatDate(ep.previous_secret_expires_at)] as [string, string]] : []),
            ]}
          />
        </Card>
      )}
      <DeliveriesCard endpointId={id} />
      {roll.data?.secret && !rolledSeen && (
        <Modal title="New signing secret" onClose={() => setRolledSeen(true)} footer={<Button variant="primary" onClick={() => setRolledSeen(true)}>I have stored it</Button>}>
          <SecretReveal label="Signing secret" value={roll.data.secret} warning="Shown only now. Deliveries are signed with both the new and the old secret for a while, so you can switch without dropping events." />
        </Modal>
      )}
      {modal === 'edit' && ep && <EndpointEditModal endpoint={ep} onClose={() => setModal(null)} />}
      {modal === 'delete' && (
        <Modal title="Delete this endpoint?" onClose={() => setModal(null)} footer={<><Button onClick={() => setModal(null)}>Cancel</Button><Button variant="danger" loading={del.isPending} onClick={() => del.mutate()}>Delete</Button></>}>
          <p>Trisettle stops sending events to <Mono>{ep?.url ?? id}</Mono> at once.</p>
          {del.isError && <ApiErrorAlert error={del.error} />}
        </Modal>
      )}
    </div>
  );
}
