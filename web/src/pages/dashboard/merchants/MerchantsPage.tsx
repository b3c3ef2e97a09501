import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { isAddress } from 'viem';
import { Clip, Alert, Badge, Button, Card, ChainName, Empty, Field, Hash, Link, Modal, SecretReveal, Select, SkeletonRows } from '../../../components/ui';
import { api, errorMessage } from '../../../lib/api';
import { CHAIN_OPTIONS, DEFAULT_CHAIN_ID } from '../../../lib/chains';
import { formatDate, formatShortDate, relativeTime } from '../../../lib/format';
import { formatBps } from '../../../lib/money';
import { useTitle } from '../../../lib/router';
import type { Invitation, List, Merchant } from '../../../lib/types';
import { paramError, parseBps, type Errors } from '../shared/forms';
import { Pager, usePaged } from '../shared/paging';
import { ApiErrorAlert } from '../shared/ApiErrorAlert';
import { Table } from '../../../components/Table';

export function MerchantsPage() {
  useTitle('Merchants');
  const paged = usePaged<Merchant>('merchants', '/v1/merchants');
  const invitations = useQuery({ queryKey: ['invitations'], queryFn: () => api.get<List<Invitation>>('/v1/merchants/invitations'), refetchInterval: 10_000 });
  const [modal, setModal] = useState<'merchant' | 'invite' | null>(null);
  const [reissue, setReissue] = useState<Invitation | null>(null);
  const [revoking, setRevoking] = useState<Invitation | null>(null);
  return (
    <div className="page">
      <div className="page-head">
        <h1 className="page-title">Merchants</h1>
        <div className="page-actions">
          <Button onClick={() => setModal('merchant')}>Add directly</Button>
          <Button variant="primary" onClick={() => setModal('invite')}>Invite merchant</Button>
        </div>
      </div>
      <Card padded={false}>
        {paged.query.isError ? (
          <div className="card-body"><ApiErrorAlert title="Could not load merchants" error={paged.query.error} /></div>
        ) : !paged.query.isPending && paged.rows.length === 0 ? (
          <Empty title="No merchants yet" action={<Button variant="primary" onClick={() => setModal('invite')}>Invite merchant</Button>}>
            Invite a merchant to connect their own wallet, or add one directly if you already know their wallet address.
          </Empty>
        ) : (
          <Table label="Merchants">
              <thead><tr><th scope="col">Name</th><th scope="col">Merchant ID</th><th scope="col">Wallet</th><th scope="col">Network</th><th scope="col" className="num">Reserve</th><th scope="col">Status</th><th scope="col">Added</th></tr></thead>
              <tbody>
                {paged.query.isPending ? <SkeletonRows cols={7} /> : paged.rows.map((m) => (
                  <tr key={m.id}>
                    <td className="strong"><Link href={`/dashboard/merchants/${encodeURIComponent(m.external_id)}`}>{m.name}</Link></td>
                    <td><Clip mono text={m.external_id} /></td>
                    <td><Hash value={m.merchant_wallet} head={8} tail={6} /></td>
                    <td><ChainName chainId={m.chain_id} short /></td>
                    <td className="num">{formatBps(m.reserve_bps)}</td>
                    <td><Badge state={m.state} /></td>
                    <td className="muted">{formatShortDate(m.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </Table>
        )}
        <Pager page={paged.page} hasPrev={paged.hasPrev} hasNext={paged.hasNext} onPrev={paged.prev} onNext={paged.next} count={paged.rows.length} />
      </Card>

      <Card title="Invitations" padded={false}>
        {invitations.isError ? (
          <div className="card-body"><ApiErrorAlert error={invitations.error} /></div>
        ) : (invitations.data?.data.length ?? 0) === 0 ? (
          <div className="card-body empty-inline">{invitations.isPending ? 'Loading…' : 'No invitations yet. Invite a merchant to send them an onboarding link.'}</div>
        ) : (
          <Table label="Invitations">
              <thead><tr><th scope="col">Merchant ID</th><th scope="col">Suggested name</th><th scope="col">Network</th><th scope="col">Status</th><th scope="col">Wallet</th><th scope="col">Expires</th><th scope="col">Created</th><th scope="col"><span className="sr-only">Actions</span></th></tr></thead>
              <tbody>
                {invitations.data!.data.map((i) => (
                  <tr key={i.id}>
                    <td><Clip mono text={i.external_id} /></td>
                    <td><Clip text={i.suggested_name} twoLines /></td>
                    <td><ChainName chainId={i.chain_id} short /></td>
                    <td>{i.revoked_at ? <Badge state="expired">Revoked</Badge> : <Badge state={i.state} />}</td>
                    <td>{i.wallet ? <Hash value={i.wallet} head={8} tail={6} /> : <span className="muted">—</span>}</td>
                    <td className="muted">{i.state === 'pending' ? relativeTime(i.expires_at) : formatShortDate(i.expires_at)}</td>
                    <td className="muted">{formatShortDate(i.created_at)}</td>
                    <td>
                      {i.state !== 'completed' && (
                        <div className="row-actions">
                          {i.state === 'pending' && <Button size="sm" onClick={() => setRevoking(i)}>Revoke</Button>}
                          <Button size="sm" onClick={() => setReissue(i)}>Re-issue</Button>
                        </div>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </Table>
        )}
      </Card>
      {reissue && <InviteModal initial={reissue} onClose={() => setReissue(null)} />}
      {revoking && <RevokeInvitationModal invitation={revoking} onClose={() => setRevoking(null)} />}
      {modal === 'merchant' && <NewMerchantModal onClose={() => setModal(null)} />}
      {modal === 'invite' && <InviteModal onClose={() => setModal(null)} />}
    </div>
  );
}


function NewMerchantModal({ onClose }: { onClose: () => void }) {
  const qc = useQueryClient();
  const [f, setF] = useState({ external_id: '', name: '', merchant_wallet: '', chain_id: DEFAULT_CHAIN_ID, reserve_bps: '500' });
  const [errors, setErrors] = useState<Errors>({});
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (k: keyof typeof f) => (e: { target: { value: string } }) => setF({ ...f, [k]: e.target.value });
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const v: Errors = {};
    if (!f.external_id.trim()) v.external_id = 'Your own ID for this merchant.';
    if (f.name.trim().length < 2) v.name = 'The name buyers will see.';
    if (!isAddress(f.merchant_wallet.trim(), { strict: false })) v.merchant_wallet = 'A 0x… wallet address.';
    if (parseBps(f.reserve_bps) === null) v.reserve_bps = 'Basis points from 0 to 10000.';
    setErrors(v);
    if (Object.keys(v).length) return;
    setBusy(true);
    setError(null);
    try {
      await api.post<Merchant>('/v1/onboarding/merchants', { external_id: f.external_id.trim(), name: f.name.trim(), merchant_wallet: f.merchant_wallet.trim(), chain_id: Number(f.chain_id), reserve_bps: parseBps(f.reserve_bps) });
      await qc.invalidateQueries({ queryKey: ['merchants'] });
      onClose();
    } catch (err) {
      const p = paramError(err, Object.keys(f));
      if (p.field) setErrors(p.field);
      else setError(p.general ?? null);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal title="Add a merchant" onClose={onClose}>
      <form onSubmit={submit} noValidate>
        <div className="form-row">
          <Field label="Merchant ID" name="external_id" value={f.external_id} onChange={set('external_id')} error={errors.external_id} hint="Your own key; orders use it." spellCheck={false} />
          <Field label="Display name" name="name" value={f.name} onChange={set('name')} error={errors.name} />
        </div>
        <Field label="Payout wallet" name="merchant_wallet" value={f.merchant_wallet} onChange={set('merchant_wallet')} error={errors.merchant_wallet} placeholder="0x…" spellCheck={false} className="mono-input" />
        <div className="form-row">
          <Select label="Network" name="chain_id" value={f.chain_id} onChange={set('chain_id')} options={CHAIN_OPTIONS} error={errors.chain_id} />
          <Field label="Reserve" name="reserve_bps" inputMode="numeric" value={f.reserve_bps} onChange={set('reserve_bps')} error={errors.reserve_bps} suffix="bps" />
        </div>
        <div className="slot">{error && <Alert tone="error">{error}</Alert>}</div>
        <div className="modal-actions">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" loading={busy}>Add merchant</Button>
        </div>
      </form>
    </Modal>
  );
}

function RevokeInvitationModal({ invitation, onClose }: { invitation: Invitation; onClose: () => void }) {
  const qc = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const revoke = async () => {
    setBusy(true);
    setError(null);
    try {
      await api.post<Invitation>(`/v1/merchants/invitations/${encodeURIComponent(invitation.id)}/revoke`);
      await qc.invalidateQueries({ queryKey: ['invitations'] });
      onClose();
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal
      title="Revoke this invitation?"
      onClose={onClose}
      footer={<><Button onClick={onClose}>Keep it</Button><Button variant="danger" loading={busy} onClick={revoke}>Revoke invitation</Button></>}
    >
      <p>The link sent for <span className="mono">{invitation.external_id}</span> stops working at once. You can re-issue a fresh link later.</p>
      <div className="slot">{error && <Alert tone="error">{error}</Alert>}</div>
    </Modal>
  );
}

/** New invitation, or (with `initial`) a re-issue: a fresh link for the same merchant ID; the old link stays expired. */
function InviteModal({ onClose, initial }: { onClose: () => void; initial?: Invitation }) {
  const qc = useQueryClient();
  const [f, setF] = useState({
    external_id: initial?.external_id ?? '', suggested_name: initial?.suggested_name ?? '', chain_id: String(initial?.chain_id ?? 84532),
    reserve_bps: String(initial?.reserve_bps ?? 500), days: '7',
  });
  const [errors, setErrors] = useState<Errors>({});
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<Invitation | null>(null);
  const set = (k: keyof typeof f) => (e: { target: { value: string } }) => setF({ ...f, [k]: e.target.value });
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const v: Errors = {};
    if (!f.external_id.trim()) v.external_id = 'Your own ID for this merchant.';
    if (f.suggested_name.trim().length < 2) v.suggested_name = 'A name the merchant can change.';
    if (parseBps(f.reserve_bps) === null) v.reserve_bps = 'Basis points from 0 to 10000.';
    setErrors(v);
    if (Object.keys(v).length) return;
    setBusy(true);
    setError(null);
    try {
      const inv = await api.post<Invitation>('/v1/merchants/invitations', {
        external_id: f.external_id.trim(),
        suggested_name: f.suggested_name.trim(),
        chain_id: Number(f.chain_id),
        reserve_bps: parseBps(f.reserve_bps),
        expires_in_seconds: Number(f.days) * 86_400,
      });
      setCreated(inv);
      await qc.invalidateQueries({ queryKey: ['invitations'] });
    } catch (err) {
      const p = paramError(err, ['external_id', 'suggested_name', 'chain_id', 'reserve_bps']);
      if (p.field) setErrors(p.field);
      else setError(p.general ?? null);
    } finally {
      setBusy(false);
    }
  };
  if (created?.url) {
    return (
      <Modal title="Invitation created" onClose={onClose} footer={<Button variant="primary" onClick={onClose}>Done</Button>}>
        <p className="muted">Send this link to the merchant. They connect their wallet, choose a display name and sign — no account needed.</p>
        <SecretReveal label="Onboarding link" value={created.url} warning={`Shown only now. Single use; expires ${formatDate(created.expires_at)}.`} />
      </Modal>
    );
  }
  return (
    <Modal title={initial ? 'Re-issue the invitation' : 'Invite a merchant'} onClose={onClose}>
      {initial && <p className="muted">A fresh link for {initial.external_id}; any link sent before stays expired.</p>}
      <form onSubmit={submit} noValidate>
        <div className="form-row">
          <Field label="Merchant ID" name="external_id" value={f.external_id} onChange={set('external_id')} error={errors.external_id} hint="Your own key; orders use it." spellCheck={false} readOnly={Boolean(initial)} />
          <Field label="Suggested name" name="suggested_name" value={f.suggested_name} onChange={set('suggested_name')} error={errors.suggested_name} hint="The merchant can change it." />
        </div>
        <div className="form-row">
          <Select label="Network" name="chain_id" value={f.chain_id} onChange={set('chain_id')} options={CHAIN_OPTIONS} error={errors.chain_id} />
          <Field label="Reserve" name="reserve_bps" inputMode="numeric" value={f.reserve_bps} onChange={set('reserve_bps')} error={errors.reserve_bps} suffix="bps" />
        </div>
        <Select label="Link valid for" name="expires" value={f.days} onChange={set('days')} options={[{ value: '1', label: '1 day' }, { value: '7', label: '7 days' }, { value: '30', label: '30 days' }]} />
        <div className="slot">{error && <Alert tone="error">{error}</Alert>}</div>
        <div className="modal-actions">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" loading={busy}>{initial ? 'Create new link' : 'Create invitation'}</Button>
        </div>
      </form>
    </Modal>
  );
}
