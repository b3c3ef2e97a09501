import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Alert, Button, Modal } from '../../../components/ui';
import { api, errorMessage } from '../../../lib/api';
import { formatDate } from '../../../lib/format';
import type { Subscription } from '../../../lib/types';

/** Cancel with a confirmation: at once (the operator revokes the permission on chain) or at the end of the current period. */
export function CancelModal({ sub, onClose }: { sub: Subscription; onClose: () => void }) {
  const qc = useQueryClient();
  const [when, setWhen] = useState<'now' | 'period_end'>('period_end');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async () => {
    setBusy(true);
    setError(null);
    try {
      const next = await api.post<Subscription>(`/v1/subscriptions/${encodeURIComponent(sub.id)}/cancel`, when === 'now' ? {} : { at_period_end: true });
      qc.setQueryData(['subscription', sub.id], next);
      await qc.invalidateQueries({ queryKey: ['subscriptions'] });
      onClose();
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal
      title="Cancel subscription"
      onClose={onClose}
      footer={
        <>
          <Button onClick={onClose}>Keep it</Button>
          <Button variant="danger" loading={busy} onClick={submit}>{when === 'now' ? 'Cancel now' : 'Cancel at period end'}</Button>
        </>
      }
    >
      <fieldset className="radio-group">
        <legend>When</legend>
        <label><input type="radio" name="cancel_when" checked={when === 'period_end'} onChange={() => setWhen('period_end')} /> At the end of the current period ({formatDate(sub.current_period_end)}): no charge after it</label>
        <label><input type="radio" name="cancel_when" checked={when === 'now'} onChange={() => setWhen('now')} /> Now: the permission is revoked on chain and nothing more can be charged</label>
      </fieldset>
      <p className="muted">Charges already taken are not refunded by cancelling; refund them from their order pages.</p>
      <div className="slot">{error && <Alert tone="error">{error}</Alert>}</div>
    </Modal>
  );
}
