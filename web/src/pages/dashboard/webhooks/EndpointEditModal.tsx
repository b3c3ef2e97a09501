import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Alert, Button, Field, Modal } from '../../../components/ui';
import { api } from '../../../lib/api';
import type { WebhookEndpoint } from '../../../lib/types';
import { RequestIdLink } from '../shared/ApiErrorAlert';
import { paramError } from '../shared/forms';
import { EventPicker, useEventChoice } from './EventPicker';

type Editable = WebhookEndpoint & { description?: string | null };

/** Changes an endpoint's URL, events and description (`POST /v1/webhooks/endpoints/{id}`); the secret stays. */
export function EndpointEditModal({ endpoint, onClose }: { endpoint: Editable; onClose: () => void }) {
  const qc = useQueryClient();
  const [url, setUrl] = useState(endpoint.url);
  const [description, setDescription] = useState(endpoint.description ?? '');
  const choice = useEventChoice(endpoint.subscribed_events);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const save = useMutation({
    mutationFn: () => api.post<WebhookEndpoint>(`/v1/webhooks/endpoints/${encodeURIComponent(endpoint.id)}`, { url: url.trim(), subscribed_events: choice.subscribed(), description: description.trim() }),
    onSuccess: async () => {
      await qc.invalidateQueries({ queryKey: ['webhooks'] });
      onClose();
    },
    onError: (err) => setErrors(paramError(err, ['url', 'description']).field ?? {}),
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const v: Record<string, string> = {};
    if (!/^https?:\/\/\S+$/.test(url.trim())) v.url = 'A full https:// address of your server.';
    if (choice.empty) v.events = 'Choose at least one event.';
    setErrors(v);
    if (Object.keys(v).length === 0) save.mutate();
  };
  const general = save.isError && !paramError(save.error, ['url', 'description']).field ? save.error : null;
  return (
    <Modal title="Edit endpoint" onClose={onClose} wide>
      <form onSubmit={submit} noValidate aria-label="Edit endpoint">
        <Field label="Endpoint URL" name="url" value={url} onChange={(e) => setUrl(e.target.value)} error={errors.url} spellCheck={false} />
        <Field label="Description" name="description" value={description} onChange={(e) => setDescription(e.target.value)} error={errors.description} placeholder="What this endpoint is for" />
        <EventPicker choice={choice} error={errors.events} />
        <div className="slot">{general && <Alert tone="error">{general.message}<RequestIdLink error={general} /></Alert>}</div>
        <div className="modal-actions">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" loading={save.isPending}>Save changes</Button>
        </div>
      </form>
    </Modal>
  );
}
