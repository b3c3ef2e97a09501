import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Alert, Button, Modal } from '../../../components/ui';
import { api, errorMessage } from '../../../lib/api';
import { formatHuman } from '../../../lib/money';
import { useNow } from '../../../lib/useNow';
import type { Order } from '../../../lib/types';
import { CaptureModal } from './CaptureModal';
import { captureRequest, nextKey, type CaptureRequest } from './capture-request';

/**
 * The page-head actions of an authorized order: Capture… and Void, or what was requested while the
 * transaction is on its way, or why neither is possible any more (the capture deadline is chain time; the
 * router refuses a capture from then on and the buyer may reclaim).
 */
export function CaptureActions({ order }: { order: Order }) {
  const [open, setOpen] = useState<CaptureRequest | null>(null);
  const now = useNow(5_000);
  const expired = order.capture_before !== null && new Date(order.capture_before).getTime() <= now;
  const requested = captureRequest(order);
  if (requested) {
    return (
      <span className="request-note" role="status" data-testid="capture-requested">
        <span className="spinner spinner-dark" aria-hidden="true" />
        {requested === 'capture' ? 'Capture requested…' : expired ? 'Deadline passed, returning the funds to the buyer…' : 'Void requested…'}
      </span>
    );
  }
  return (
    <>
      {!expired && <Button variant="primary" onClick={() => setOpen('capture')}>Capture…</Button>}
      <Button variant="danger" onClick={() => setOpen('void')}>Void</Button>
      {open === 'capture' && <CaptureModal order={order} onClose={() => setOpen(null)} />}
      {open === 'void' && <VoidDialog order={order} onClose={() => setOpen(null)} />}
    </>
  );
}

function VoidDialog({ order, onClose }: { order: Order; onClose: () => void }) {
  const qc = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [key, setKey] = useState<string>(() => crypto.randomUUID());
  const submit = async () => {
    setBusy(true);
    setError(null);
    try {
      const updated = await api.post<Order>(`/v1/orders/${encodeURIComponent(order.id)}/void`, {}, { idempotencyKey: key });
      qc.setQueryData(['order', order.id], updated);
      await qc.invalidateQueries({ queryKey: ['orders'] });
      onClose();
    } catch (err) {
      setKey((k) => nextKey(k, err));
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal
      title="Void this authorization?"
      onClose={onClose}
      footer={<><Button onClick={onClose}>Keep it</Button><Button variant="danger" loading={busy} onClick={submit}>Void authorization</Button></>}
    >
      <p>
        The payment router sends all <strong>{formatHuman(order.amount_authorized)} USDC</strong> back to the buyer&apos;s wallet. Nothing is
        captured, nobody is paid, and the order cannot be captured afterwards.
      </p>
      <div className="slot">{error && <Alert tone="error">{error}</Alert>}</div>
    </Modal>
  );
}
