import { useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Clip, Alert, Badge, Button, Card, Empty, Field, Link, Modal, SecretReveal, Select, SkeletonRows } from '../../../components/ui';
import { api, withQuery } from '../../../lib/api';
import { CHAIN_OPTIONS, DEFAULT_CHAIN_ID } from '../../../lib/chains';
import { formatDate, formatShortDate, humanize } from '../../../lib/format';
import { AMOUNT_RE, formatHuman } from '../../../lib/money';
import { navigate, useLocation, useTitle } from '../../../lib/router';
import { ORDER_STATES, type CreatedSession, type Order } from '../../../lib/types';
import { MerchantSelect, paramError, type Errors } from '../shared/forms';
import { Pager, usePaged } from '../shared/paging';
import { ApiErrorAlert } from '../shared/ApiErrorAlert';
import { isManual } from '../../../lib/capture';
import { chargeLaterBody, chargeLaterError, CHARGE_LATER_OFF, type ChargeLater } from './charge-later';
import { ChargeLaterFields } from './ChargeLaterFields';
import { OrderAmount } from './OrderAmount';
import { Table } from '../../../components/Table';

export function OrdersPage() {
  useTitle('Orders');
  const { search } = useLocation();
  const state = search.get('state') ?? '';
  const filters = { q: search.get('q') ?? '', from: search.get('from') ?? '', to: search.get('to') ?? '' };
  const range = dayRange(filters.from, filters.to);
  const paged = usePaged<Order>('orders', '/v1/orders', { state: state || undefined, q: filters.q || undefined, ...range });
  const [modal, setModal] = useState<'order' | 'checkout' | null>(null);
  const go = (next: Record<string, string>) => {
    const params = new URLSearchParams(Object.entries({ state, ...filters, ...next }).filter(([, v]) => v));
    const qs = params.toString();
    navigate(qs ? `/dashboard/orders?${qs}` : '/dashboard/orders', { replace: true });
  };
  const setState = (s: string) => go({ state: s });
  const filtered = Boolean(state || filters.q || filters.from || filters.to);

  return (
    <div className="page">
      <div className="page-head">
        <h1 className="page-title">Orders</h1>
        <div className="page-actions">
          <Button onClick={() => setModal('checkout')}>New checkout link</Button>
          <Button variant="primary" onClick={() => setModal('order')}>New order</Button>
        </div>
      </div>
      <OrderSearch key={`${filters.q}|${filters.from}|${filters.to}`} initial={filters} onSearch={(f) => go(f)} exportHref={withQuery('/v1/exports/orders.csv', range)} />
      <div className="filters" role="group" aria-label="Filter by status">
        {['', ...ORDER_STATES].map((s) => (
          <button key={s || 'all'} type="button" className={`chip${state === s ? ' chip-active' : ''}`} aria-pressed={state === s} onClick={() => setState(s)}>
            {s ? humanize(s) : 'All'}
          </button>
        ))}
      </div>
      <Card padded={false}>
        {paged.query.isError ? (
          <div className="card-body"><ApiErrorAlert title="Could not load orders" error={paged.query.error} /></div>
        ) : !paged.query.isPending && paged.rows.length === 0 ? (
          <Empty title={filtered ? (state && !filters.q && !filters.from && !filters.to ? `No ${humanize(state).toLowerCase()} orders` : 'No orders match') : 'No orders yet'} action={<Button variant="primary" onClick={() => setModal('order')}>New order</Button>}>
            Orders appear here when you create them from the dashboard, the API or a checkout link.
          </Empty>
        ) : (
          <Table label="Orders" className="table-click">
              <thead>
                <tr><th scope="col" className="num">Amount</th><th scope="col">Status</th><th scope="col">Order</th><th scope="col">Merchant</th><th scope="col">Created</th></tr>
              </thead>
              <tbody>
                {paged.query.isPending ? <SkeletonRows cols={5} /> : paged.rows.map((o) => (
                  <tr key={o.id} onClick={() => navigate(`/dashboard/orders/${o.id}`)}>
                    <td className="num strong nowrap"><OrderAmount order={o} /></td>
                    <td className="nowrap"><Badge state={o.state} />{isManual(o) && <span className="capture-tag"> Charge later</span>}</td>
                    <td><Link href={`/dashboard/orders/${o.id}`} className="cell-clip">{o.order_no}</Link><span className="cell-sub mono-soft">{o.id}</span></td>
                    <td><Clip mono text={o.merchant_id} /></td>
                                        <td className="muted">{formatShortDate(o.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </Table>
        )}
        <Pager page={paged.page} hasPrev={paged.hasPrev} hasNext={paged.hasNext} onPrev={paged.prev} onNext={paged.next} count={paged.rows.length} loading={paged.query.isFetching && paged.query.isPending} />
      </Card>
      {modal === 'order' && <NewOrderModal onClose={() => setModal(null)} />}
      {modal === 'checkout' && <NewCheckoutModal onClose={() => setModal(null)} />}
    </div>
  );
}

/** Date inputs are whole days (UTC); the API's `to` is exclusive, so the last day shown is included. */
function dayRange(from: string, to: string): { from?: string; to?: string } {
  const next = (d: string) => {
    const t = new Date(`${d}T00:00:00Z`);
    if (Number.isNaN(t.getTime())) return d;
    t.setUTCDate(t.getUTCDate() + 1);
    return t.toISOString().slice(0, 10);
  };
  return { ...(from ? { from } : {}), ...(to ? { to: next(to) } : {}) };
}

type Filters = { q: string; from: string; to: string };

function OrderSearch({ initial, onSearch, exportHref }: { initial: Filters; onSearch: (f: Filters) => void; exportHref: string }) {
  const [f, setF] = useState(initial);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSearch({ q: f.q.trim(), from: f.from, to: f.to });
  };
  return (
    <form className="search-bar" role="search" aria-label="Search orders" onSubmit={submit}>
      <Field label="Search" name="q" value={f.q} onChange={(e) => setF({ ...f, q: e.target.value })} placeholder="Order number, ord_…, payer 0x… or tx hash" spellCheck={false} className="search-q" />
      <Field label="From" name="from" type="date" value={f.from} onChange={(e) => setF({ ...f, from: e.target.value })} />
      <Field label="To" name="to" type="date" value={f.to} onChange={(e) => setF({ ...f, to: e.target.value })} />
      <div className="search-actions">
        <Button type="submit" variant="primary">Search</Button>
        {(initial.q || initial.from || initial.to) && <Button onClick={() => onSearch({ q: '', from: '', to: '' })}>Clear</Button>}
        <a className="btn btn-secondary btn-md" href={exportHref} download>Export CSV</a>
      </div>
    </form>
  );
}

type OrderForm = { merchant_id: string; order_no: string; amount: string; chain_id: string; charge: ChargeLater };
const FIELDS = ['merchant_id', 'order_no', 'amount', 'chain_id', 'success_url', 'cancel_url', 'capture_method', 'capture_within_seconds'];
const EMPTY: OrderForm = { merchant_id: '', order_no: '', amount: '', chain_id: DEFAULT_CHAIN_ID, charge: CHARGE_LATER_OFF };
/** What orders and checkout sessions share: the order's fields, and charge later when chosen. */
const orderBody = (f: OrderForm) => ({ merchant_id: f.merchant_id, order_no: f.order_no.trim(), chain_id: Number(f.chain_id), token: 'USDC', amount: f.amount.trim(), ...chargeLaterBody(f.charge) });

function validate(f: OrderForm): Errors {
  const e: Errors = {};
  if (!f.merchant_id) e.merchant_id = 'Choose a merchant.';
  if (!f.order_no.trim()) e.order_no = 'Enter your order number.';
  if (!AMOUNT_RE.test(f.amount.trim()) || /^0+(\.0+)?$/.test(f.amount.trim())) e.amount = 'An amount like 12.50 (up to 6 decimals).';
  const capture = chargeLaterError(f.charge);
  if (capture) e.capture_within_seconds = capture;
  return e;
}

function NewOrderModal({ onClose }: { onClose: () => void }) {
  const qc = useQueryClient();
  const [f, setF] = useState<OrderForm>(EMPTY);
  const [errors, setErrors] = useState<Errors>({});
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const v = validate(f);
    setErrors(v);
    if (Object.keys(v).length) return;
    setBusy(true);
    setError(null);
    try {
      const order = await api.post<Order>('/v1/orders', orderBody(f));
      await qc.invalidateQueries({ queryKey: ['orders'] });
      await qc.invalidateQueries({ queryKey: ['summary'] });
      onClose();
      navigate(`/dashboard/orders/${order.id}`);
    } catch (err) {
      const p = paramError(err, FIELDS);
      if (p.field) setErrors(p.field);
      else setError(p.general ?? null);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal title="New order" onClose={onClose}>
      <form onSubmit={submit} noValidate>
        <OrderFields f={f} setF={setF} errors={errors} />
        <div className="slot">{error && <Alert tone="error">{error}</Alert>}</div>
        <div className="modal-actions">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" loading={busy}>Create order</Button>
        </div>
      </form>
    </Modal>
  );
}

function OrderFields({ f, setF, errors }: { f: OrderForm; setF: (f: OrderForm) => void; errors: Errors }) {
  return (
    <>
      <MerchantSelect value={f.merchant_id} onChange={(v) => setF({ ...f, merchant_id: v })} />
      {errors.merchant_id && <p className="field-error">{errors.merchant_id}</p>}
      <div className="form-row">
        <Field label="Order number" name="order_no" value={f.order_no} onChange={(e) => setF({ ...f, order_no: e.target.value })} error={errors.order_no} hint="Your own reference, unique per order." />
        <Field label="Amount" name="amount" inputMode="decimal" value={f.amount} onChange={(e) => setF({ ...f, amount: e.target.value })} error={errors.amount} suffix="USDC" placeholder="0.00" />
      </div>
      <Select label="Network" name="chain_id" value={f.chain_id} onChange={(e) => setF({ ...f, chain_id: e.target.value })} options={CHAIN_OPTIONS} error={errors.chain_id} />
      <ChargeLaterFields value={f.charge} onChange={(charge) => setF({ ...f, charge })} errors={errors} />
    </>
  );
}

function NewCheckoutModal({ onClose }: { onClose: () => void }) {
  const qc = useQueryClient();
  const [f, setF] = useState<OrderForm>(EMPTY);
  const [urls, setUrls] = useState({ success_url: '', cancel_url: '' });
  const [errors, setErrors] = useState<Errors>({});
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<CreatedSession | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const v = validate(f);
    for (const k of ['success_url', 'cancel_url'] as const) if (urls[k] && !/^https?:\/\/\S+$/.test(urls[k])) v[k] = 'A full http(s):// address.';
    setErrors(v);
    if (Object.keys(v).length) return;
    setBusy(true);
    setError(null);
    try {
      const body: Record<string, unknown> = orderBody(f);
      if (urls.success_url) body.success_url = urls.success_url;
      if (urls.cancel_url) body.cancel_url = urls.cancel_url;
      setCreated(await api.post<CreatedSession>('/v1/checkout/sessions', body));
      await qc.invalidateQueries({ queryKey: ['orders'] });
    } catch (err) {
      const p = paramError(err, FIELDS);
      if (p.field) setErrors(p.field);
      else setError(p.general ?? null);
    } finally {
      setBusy(false);
    }
  };
  if (created) {
    return (
      <Modal title="Checkout link created" onClose={onClose} footer={<Button variant="primary" onClick={onClose}>Done</Button>}>
        <SecretReveal label="Checkout link" value={created.url} warning={`Send this link to the buyer. It expires ${formatDate(created.expires_at)}.`} />
      </Modal>
    );
  }
  return (
    <Modal title="New checkout link" onClose={onClose}>
      <form onSubmit={submit} noValidate>
        <OrderFields f={f} setF={setF} errors={errors} />
        <Field label="Success URL (optional)" name="success_url" value={urls.success_url} onChange={(e) => setUrls({ ...urls, success_url: e.target.value })} error={errors.success_url} placeholder="https://shop.example/thanks" />
        <Field label="Cancel URL (optional)" name="cancel_url" value={urls.cancel_url} onChange={(e) => setUrls({ ...urls, cancel_url: e.target.value })} error={errors.cancel_url} placeholder="https://shop.example/cart" />
        <div className="slot">{error && <Alert tone="error">{error}</Alert>}</div>
        <div className="modal-actions">
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="primary" loading={busy}>Create link</Button>
        </div>
      </form>
    </Modal>
  );
}
