import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Alert, Button, Field, Modal } from '../../../components/ui';
import { api } from '../../../lib/api';
import { formatDate } from '../../../lib/format';
import { formatBase, formatHuman } from '../../../lib/money';
import type { Order } from '../../../lib/types';
import { nextKey } from './capture-request';
import { captureAmountError, capturePreview } from './capture-preview';
import { paramError, type Errors } from '../shared/forms';

/**
 * Capture all or part of an authorization (one capture per order). The amount starts at everything
 * authorized; the preview splits it as the router will, and shows what goes back to the buyer.
 */
export function CaptureModal({ order, onClose }: { order: Order; onClose: () => void }) {
  const qc = useQueryClient();
  const [amount, setAmount] = useState(order.amount_authorized);
  const [errors, setErrors] = useState<Errors>({});
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [key, setKey] = useState<string>(() => crypto.randomUUID());
  const local = captureAmountError(order, amount);
  const preview = local ? null : capturePreview(order, amount);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setErrors(local ? { amount: local } : {});
    if (local) return;
    setBusy(true);
    setError(null);
    try {
      const body = amount.trim() ? { amount: amount.trim() } : {};
      const updated = await api.post<Order>(`/v1/orders/${encodeURIComponent(order.id)}/capture`, body, { idempotencyKey: key });
      qc.setQueryData(['order', order.id], updated);
      await qc.invalidateQueries({ queryKey: ['orders'] });
      onClose();
    } catch (err) {
      setKey((k) => nextKey(k, err));
      const p = paramError(err, ['amount']);
      if (p.field) setErrors(p.field);
      else setError(p.general ?? null);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal title="Capture payment" onClose={onClose}>
      <form onSubmit={submit} noValidate>
        <p className="muted modal-lead">
          {formatHuman(order.amount_authorized)} USDC is authorized until {formatDate(order.capture_before)}. You can capture once; whatever you do not capture goes back to the buyer in the same transaction.
        </p>
        <Field label="Amount to capture" name="amount" inputMode="decimal" value={amount} onChange={(e) => setAmount(e.target.value)} error={errors.amount ?? (amount.trim() ? local : null)} suffix="USDC" hint="Everything authorized, or less for a partial capture." />
        {preview && (
          <div className="refund-preview" data-testid="capture-preview">
            <table className="preview-table" aria-label="Split of the capture">
              <tbody>
                <PreviewRow label="Service fee" value={preview.serviceFee} />
                <PreviewRow label="Platform fee" value={preview.platformFee} />
                <PreviewRow label="Merchant, available now" value={preview.merchantAvailable} />
                <PreviewRow label="Merchant, held in reserve" value={preview.reserveHold} />
                <PreviewRow label="Captured" value={preview.amount} total />
                <PreviewRow label="Back to the buyer" value={preview.returned} total />
              </tbody>
            </table>
            <p className="muted preview-note">
              {preview.returned === 0n
                ? 'The split signed when the buyer authorized.'
                : "Scaled from the order's signed split. Trisettle computes the exact split of the captured amount at the order's fee rates (each fee rounded down); it can differ from these lines by at most 0.000003 USDC."}
            </p>
          </div>
        )}
        <div className="slot">{error && <Alert tone="error">{error}</Alert>}</div>
        <div className="modal-actions">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" loading={busy} disabled={Boolean(local)}>
            {preview ? `Capture ${formatBase(preview.amount)} USDC` : 'Capture'}
          </Button>
        </div>
      </form>
    </Modal>
  );
}

function PreviewRow({ label, value, total = false }: { label: string; value: bigint; total?: boolean }) {
  return (
    <tr className={total ? 'preview-total' : undefined}>
      <th scope="row">{label}</th>
      <td className="num">{formatBase(value)} USDC</td>
    </tr>
  );
}
