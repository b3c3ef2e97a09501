import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Alert, Button, Link, Select } from '../../../components/ui';
import { api } from '../../../lib/api';
import type { DeliveryDetail } from '../../../lib/dx-types';
import { EVENT_TYPES } from '../../../lib/types';
import { ApiErrorAlert } from '../shared/ApiErrorAlert';
import { deliveryHref } from './DeliveriesCard';

const TYPES = ['test.ping', ...EVENT_TYPES].map((t) => ({ value: t, label: t }));

/** "Send test event" with the type asked for: test.ping, or a sample of any type the service sends (`test: true`). */
export function TestEventForm({ endpointId, disabled }: { endpointId: string; disabled: boolean }) {
  const qc = useQueryClient();
  const [type, setType] = useState('test.ping');
  const test = useMutation({
    mutationFn: (t: string) => api.post<DeliveryDetail>(`/v1/webhooks/endpoints/${encodeURIComponent(endpointId)}/test`, { type: t }),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['deliveries', endpointId] }),
  });
  const send = (e: FormEvent) => {
    e.preventDefault();
    test.mutate(type);
  };
  return (
    <>
      <form className="log-search test-event-form" aria-label="Send a test event" onSubmit={send}>
        <Select label="Event type" name="type" value={type} onChange={(e) => setType(e.target.value)} options={TYPES} />
        <Button type="submit" variant="primary" loading={test.isPending} disabled={disabled}>Send test event</Button>
      </form>
      {test.isSuccess && (
        <div className="banner-gap">
          <Alert tone="success" title="Test event sent">A signed {test.variables} was queued. <Link href={deliveryHref(test.data.id)}>Inspect the delivery</Link></Alert>
        </div>
      )}
      {test.isError && <ApiErrorAlert title="Could not send the test event" error={test.error} />}
    </>
  );
}
