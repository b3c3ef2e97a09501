import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Alert, Badge, Card, ChainName, Hash, Link, SkeletonRows } from '../../../components/ui';
import { api } from '../../../lib/api';
import { formatDate, formatShortDate, humanize } from '../../../lib/format';
import { formatBase, formatHuman, toBase } from '../../../lib/money';
import { useTitle } from '../../../lib/router';
import { When } from '../../../components/When';
import { BALANCE_TRANSACTION_TYPES, type Balance, type BalanceTotals, type BalanceTransaction, type NetVolume } from '../../../lib/types';
import { ExportLink } from '../shared/exports';
import { ledgerLabel } from './ledger-labels';
import { NetVolumeChart } from './NetVolumeChart';
import { Pager, usePaged } from '../shared/paging';
import { TestClock } from './TestClock';
import { ApiErrorAlert } from '../shared/ApiErrorAlert';
import { Table } from '../../../components/Table';

/** The figures a finance team reconciles: what the router holds for the platform, what left it, and why. */
export function BalanceFigures({ b }: { b: BalanceTotals }) {
  const items: [string, string, string?][] = [
    ['Reserve held', b.reserve_held, 'Held by the router for your merchants'],
    ['Authorized, not captured', b.authorized, 'Held by the router until you capture or void'],
    ['Releasable now', b.reserve_releasable, b.next_release_at ? `Next release ${formatDate(b.next_release_at)}` : 'Nothing else held'],
    ['Released', b.released, 'Sent to merchant wallets'],
    ['Refunded from reserve', b.refunded_from_reserve],
    ['Refunded by a wallet', b.refunded_from_submitter],
    ['Platform fees earned', b.platform_fees],
    ['Gross volume', b.gross_volume],
  ];
  return (
    <dl className="stat-grid" aria-label="Balance">
      {items.map(([label, value, hint]) => (
        <div key={label} className="stat">
          <dt className="stat-label">{label}</dt>
          <dd className="stat-value">{formatHuman(value)} <span className="muted">USDC</span></dd>
          {hint && <dd className="muted stat-hint">{hint}</dd>}
        </div>
      ))}
    </dl>
  );
}

export function NetVolumeCard() {
  const [days, setDays] = useState<7 | 30 | 90>(30);
  const volume = useQuery({ queryKey: ['net_volume', days], queryFn: () => api.get<NetVolume>('/v1/balance/net_volume', { days }) });
  return (
    <Card
      title="Net volume (gross minus refunds)"
      actions={(
        <div className="filters" role="group" aria-label="Period">
          {([7, 30, 90] as const).map((d) => (
            <button key={d} type="button" className={`chip${days === d ? ' chip-active' : ''}`} aria-pressed={days === d} onClick={() => setDays(d)}>{d} days</button>
          ))}
        </div>
      )}
    >
      {volume.isError ? <ApiErrorAlert error={volume.error} /> : <NetVolumeChart volume={volume.data} loading={volume.isPending} />}
    </Card>
  );
}

export function BalancesPage() {
  useTitle('Balances');
  const balance = useQuery({ queryKey: ['balance'], queryFn: () => api.get<Balance>('/v1/balance'), refetchInterval: 15_000 });
  const [type, setType] = useState('');
  const ledger = usePaged<BalanceTransaction>('balance_transactions', '/v1/balance_transactions', { type: type || undefined });
  return (
    <div className="page">
      <div className="page-head">
        <div>
          <h1 className="page-title">Balances</h1>
          {balance.data && <p className="muted">Chain time {balance.data.as_of ? formatDate(balance.data.as_of) : 'not indexed yet'} · {balance.data.token}</p>}
        </div>
        <div className="page-actions">
          <ExportLink kind="balance_transactions" />
          <ExportLink kind="settlements" />
          <ExportLink kind="refunds" />
        </div>
      </div>
      <TestClock />
      <Card>
        {balance.isError ? <ApiErrorAlert title="Could not load the balance" error={balance.error} />
          : balance.data ? <BalanceFigures b={balance.data} /> : <p className="muted">Loading…</p>}
      </Card>
      <NetVolumeCard />
      <Card title="By merchant" padded={false}>
        {(balance.data?.merchants.length ?? 0) === 0 ? (
          <div className="card-body empty-inline">{balance.isPending ? 'Loading…' : 'No paid orders yet.'}</div>
        ) : (
          <Table label="Balance by merchant">
              <thead><tr><th scope="col">Merchant</th><th scope="col" className="num">Reserve held</th><th scope="col" className="num">Releasable</th><th scope="col">Next release</th><th scope="col" className="num">Released</th><th scope="col" className="num">Refunded</th><th scope="col" className="num">Gross</th></tr></thead>
              <tbody>
                {balance.data!.merchants.map((m) => (
                  <tr key={m.merchant_id}>
                    <td><Link href={`/dashboard/merchants/${encodeURIComponent(m.merchant_id)}`} className="mono-soft cell-clip">{m.merchant_id}</Link></td>
                    <td className="num">{formatHuman(m.reserve_held)}</td>
                    <td className="num">{formatHuman(m.reserve_releasable)}</td>
                    <td className="muted nowrap"><When iso={m.next_release_at} /></td>
                    <td className="num">{formatHuman(m.released)}</td>
                    <td className="num">{formatBase(toBase(m.refunded_from_reserve) + toBase(m.refunded_from_submitter))}</td>
                    <td className="num">{formatHuman(m.gross_volume)}</td>
                  </tr>
                ))}
              </tbody>
            </Table>
        )}
      </Card>
      <Card title="Ledger" padded={false}>
        <div className="card-body">
          <label className="inline-select">
            <span>Type</span>
            <select value={type} onChange={(e) => setType(e.target.value)} aria-label="Transaction type">
              <option value="">All types</option>
              {BALANCE_TRANSACTION_TYPES.map((t) => <option key={t} value={t}>{ledgerLabel(t)}</option>)}
            </select>
          </label>
        </div>
        <LedgerTable rows={ledger.rows} loading={ledger.query.isPending} error={ledger.query.error?.message} />
        <Pager page={ledger.page} hasPrev={ledger.hasPrev} hasNext={ledger.hasNext} onPrev={ledger.prev} onNext={ledger.next} count={ledger.rows.length} />
      </Card>
    </div>
  );
}

export function LedgerTable({ rows, loading, error }: { rows: BalanceTransaction[]; loading: boolean; error?: string | undefined }) {
  if (error) return <div className="card-body"><Alert tone="error">{error}</Alert></div>;
  if (!loading && rows.length === 0) return <div className="card-body empty-inline">No money has moved yet.</div>;
  return (
    <Table label="Balance transactions">
        <thead><tr><th scope="col">Type</th><th scope="col" className="num">Amount</th><th scope="col">From → to</th><th scope="col">Order</th><th scope="col">Transaction</th><th scope="col">Network</th><th scope="col">Block time</th></tr></thead>
        <tbody>
          {loading ? <SkeletonRows cols={7} /> : rows.map((t) => (
            <tr key={t.id}>
              <td>{ledgerLabel(t.type)}{t.status === 'failed' && <> <Badge state="failed" /></>}</td>
              <td className="num strong nowrap">{formatHuman(t.amount)}</td>
              <td className="nowrap">{t.from_address ? <Hash value={t.from_address} copy={false} /> : <span className="muted">—</span>} → {t.to_address ? <Hash value={t.to_address} copy={false} /> : <span className="muted">—</span>}</td>
              <td><Link href={`/dashboard/orders/${t.order_id}`} className="mono-soft cell-clip">{t.order_id}</Link></td>
              <td>{t.tx_hash ? <Hash value={t.tx_hash} head={8} tail={6} copy={false} /> : '—'}</td>
              <td><ChainName chainId={t.chain_id} short /></td>
              <td className="muted">{formatShortDate(t.block_time)}</td>
            </tr>
          ))}
        </tbody>
      </Table>
  );
}
