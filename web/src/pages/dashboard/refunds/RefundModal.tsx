import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Alert, Button, DescriptionList, Field, Modal } from '../../../components/ui';
import { api } from '../../../lib/api';
import { chargedAmount } from '../../../lib/capture';
import { AMOUNT_RE, formatBase, formatHuman } from '../../../lib/money';
import type { List, Order, Refund } from '../../../lib/types';
import { paramError, type Errors } from '../shared/forms';
import { refundPreview } from './refund-preview';
import { FundRefundModal } from './RefundActions';

const ORDER_ID = /^ord_[A-Za-z0-9]{8,40}$/;

/** Create a refund. Amount empty = everything left; reserve pays first, the rest needs funding. */
export function RefundModal({ orderId, onClose }: { orderId?: string; onClose: () => void }) {
  const qc = useQueryClient();
  const [f, setF] = useState({ order_id: orderId ?? '', amount: '', reason: '' });
  const [errors, setErrors] = useState<Errors>({});
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<Refund | null>(null);
  const [paying, setPaying] = useState(false);
  // The preview needs the order: the one this form is for, or an order ID typed into it.
  const oid = orderId ?? (ORDER_ID.test(f.order_id.trim()) ? f.order_id.trim() : undefined);
  const order = useQuery({ queryKey: ['order', oid], enabled: Boolean(oid), retry: false, queryFn: () => api.get<Order>(`/v1/orders/${encodeURIComponent(oid!)}`) });
  const refunds = useQuery({ queryKey: ['refunds', 'order', oid], enabled: Boolean(oid), retry: false, queryFn: () => api.get<List<Refund>>('/v1/refunds', { order_id: oid!, limit: 100 }) });
  // A captured authorization is refundable up to what was captured, not what was authorized.
  const preview = order.data && refunds.data ? refundPreview({ ...order.data, amount: chargedAmount(order.data) }, refunds.data.data, f.amount) : null;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const v: Errors = {};
    if (!f.order_id.trim()) v.order_id = 'Enter the order ID (ord_…).';
    if (f.amount.trim() && !AMOUNT_RE.test(f.amount.trim())) v.amount = 'An amount like 5.00, or leave empty to refund everything left.';
    setErrors(v);
    if (Object.keys(v).length) return;
    setBusy(true);
    setError(null);
    try {
      const body: Record<string, string> = { order_id: f.order_id.trim() };
      if (f.amount.trim()) body.amount = f.amount.trim();
      if (f.reason.trim()) body.reason = f.reason.trim();
      const refund = await api.post<Refund>('/v1/refunds', body);
      await qc.invalidateQueries({ queryKey: ['refunds'] });
      await qc.invalidateQueries({ queryKey: ['order'] });
      setCreated(refund);
    } catch (err) {
      const p = paramError(err, ['order_id', 'amount', 'reason']);
      if (p.field) setErrors(p.field);
      else setError(p.general ?? null);
    } finally {
      setBusy(false);
    }
  };

  if (created && paying) return <FundRefundModal refund={created} onClose={onClose} />;
  if (created) {
    return (
      <Modal title="Refund created" onClose={onClose} footer={<Button variant="primary" onClick={onClose}>Done</Button>}>
        <p>
          Refund <span className="mono">{created.id}</span> of <strong>{formatHuman(created.amount)} USDC</strong> is <strong>{created.state.replace(/_/g, ' ')}</strong>.
        </p>
        {created.state === 'requires_funding' ? (
          <Alert tone="warning" title="Funding needed">
            The order&apos;s reserve covers {formatBase(created.reserve_portion)} USDC. Submit the signed refund to the router at{' '}
            <span className="mono">{created.pay_to}</span> from your platform wallet with an approval for the remaining {formatBase(created.funding_required)} USDC.
            <div className="alert-actions"><Button variant="primary" onClick={() => setPaying(true)}>Pay from wallet</Button></div>
          </Alert>
        ) : (
          <p className="muted">The reserve covers it: Trisettle submits the refund on-chain and sends refund.completed when it is confirmed.</p>
        )}
      </Modal>
    );
  }
  return (
    <Modal title="Refund an order" onClose={onClose}>
      <form onSubmit={submit} noValidate>
        <Field label="Order ID" name="order_id" value={f.order_id} onChange={(e) => setF({ ...f, order_id: e.target.value })} error={errors.order_id} placeholder="ord_…" readOnly={Boolean(orderId)} spellCheck={false} />
        <Field label="Amount (optional)" name="amount" inputMode="decimal" value={f.amount} onChange={(e) => setF({ ...f, amount: e.target.value })} error={errors.amount} suffix="USDC" hint="Leave empty to refund everything that is left." />
        <Field label="Reason (optional)" name="reason" value={f.reason} onChange={(e) => setF({ ...f, reason: e.target.value })} error={errors.reason} maxLength={500} />
        {preview && (
          <div className="refund-preview" data-testid="refund-preview">
            <DescriptionList
              items={[
                ['Refund', `${formatBase(preview.amount)} USDC`],
                ["From the order's reserve", `${formatBase(preview.reserve)} USDC`],
                ['Your wallet must fund', `${formatBase(preview.wallet)} USDC`],
              ]}
            />
            {preview.wallet > 0n && <p className="muted">The refund will wait in &quot;requires funding&quot; until a wallet pays that part (Pay from wallet).</p>}
          </div>
        )}
        <div className="slot">{error && <Alert tone="error">{error}</Alert>}</div>
        <div className="modal-actions">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="danger" loading={busy}>Refund</Button>
        </div>
      </form>
    </Modal>
  );
}
