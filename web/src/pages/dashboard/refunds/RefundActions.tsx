import { useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useState } from 'react';
import { Alert, Button, Modal, Spinner } from '../../../components/ui';
import { api, errorMessage } from '../../../lib/api';
import { formatBase, formatHuman } from '../../../lib/money';
import type { Refund } from '../../../lib/types';

// The wallet code (wagmi, viem clients) loads only when someone pays a refund from the dashboard.
const FundRefundModalLazy = lazy(() => import('./FundRefundModal'));

export function FundRefundModal({ refund, onClose }: { refund: Refund; onClose: () => void }) {
  return (
    <Suspense fallback={<Modal title="Pay refund from wallet" onClose={onClose}><Spinner label="Loading wallet" /></Modal>}>
      <FundRefundModalLazy refund={refund} onClose={onClose} />
    </Suspense>
  );
}

/** A refund that is still open: its wallet action, its cancellation, or what the router is waiting for. */
export function RefundActions({ refund }: { refund: Refund }) {
  const qc = useQueryClient();
  const [paying, setPaying] = useState(false);
  const [confirmCancel, setConfirmCancel] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  if (refund.cancellation === 'pending') return <span className="muted" role="status">Cancelling on chain…</span>;
  if (refund.cancellation === 'cancelled') return <span className="muted">Cancelled</span>;
  if (refund.state !== 'requires_funding' && refund.state !== 'pending') return null;
  const cancel = async () => {
    setBusy(true);
    setError(null);
    try {
      await api.post<Refund>(`/v1/refunds/${encodeURIComponent(refund.id)}/cancel`);
      await qc.invalidateQueries({ queryKey: ['refunds'] });
      setConfirmCancel(false);
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="row-actions">
      {refund.state === 'requires_funding' && <Button size="sm" variant="primary" onClick={() => setPaying(true)}>Pay from wallet</Button>}
      <Button size="sm" onClick={() => setConfirmCancel(true)}>Cancel</Button>
      {paying && <FundRefundModal refund={refund} onClose={() => setPaying(false)} />}
      {confirmCancel && (
        <Modal
          title="Cancel this refund?"
          onClose={() => setConfirmCancel(false)}
          footer={<><Button onClick={() => setConfirmCancel(false)}>Keep it</Button><Button variant="danger" loading={busy} onClick={cancel}>Cancel refund</Button></>}
        >
          <p>
            Trisettle asks the router to void the signed refund of <strong>{formatHuman(refund.amount)} USDC</strong>. It is reported cancelled once
            that is confirmed on chain; if someone submits it first, it completes instead.
          </p>
          <div className="slot">{error && <Alert tone="error">{error}</Alert>}</div>
        </Modal>
      )}
    </div>
  );
}

/** Where a refund's money comes from, in one cell: the reserve's part, then what a wallet must pay (when anything). */
export function RefundFunding({ refund: r }: { refund: Refund }) {
  const wallet = /^\d+$/.test(r.funding_required ?? '') ? BigInt(r.funding_required) : 0n;
  return (
    <>
      <span className="nowrap">{formatBase(r.reserve_portion)} <span className="muted">reserve</span></span>
      {wallet > 0n && <span className="cell-sub nowrap">{formatBase(r.funding_required)} <span className="muted">wallet</span></span>}
    </>
  );
}
