import { useState } from 'react';
import { Clip, Alert, Badge, Card, Empty, Link, Select, SkeletonRows } from '../../../components/ui';
import { formatDate, formatShortDate, humanize } from '../../../lib/format';
import { formatHuman } from '../../../lib/money';
import { useTitle } from '../../../lib/router';
import type { Subscription } from '../../../lib/types';
import { useMerchantOptions } from '../shared/forms';
import { Pager, usePaged } from '../shared/paging';
import { Table } from '../../../components/Table';

const STATES = ['', 'incomplete', 'active', 'past_due', 'canceled', 'expired'];

/** "month", "3 months". */
export const every = (s: Pick<Subscription, 'interval' | 'interval_count'>) => (s.interval_count === 1 ? s.interval : `${s.interval_count} ${s.interval}s`);

export function SubscriptionsPage() {
  useTitle('Subscriptions');
  const [state, setState] = useState('');
  const [merchant, setMerchant] = useState('');
  const merchants = useMerchantOptions();
  const paged = usePaged<Subscription>('subscriptions', '/v1/subscriptions', { state: state || undefined, merchant_id: merchant || undefined });
  return (
    <div className="page">
      <div className="page-head">
        <h1 className="page-title">Subscriptions</h1>
      </div>
      <div className="filters" role="group" aria-label="Filter by status">
        {STATES.map((s) => (
          <button key={s || 'all'} type="button" className={`chip${state === s ? ' chip-active' : ''}`} aria-pressed={state === s} onClick={() => setState(s)}>
            {s ? humanize(s) : 'All'}
          </button>
        ))}
      </div>
      <div className="filters">
        <Select
          label="Merchant"
          name="merchant_filter"
          value={merchant}
          onChange={(e) => setMerchant(e.target.value)}
          options={[{ value: '', label: 'All merchants' }, ...(merchants.data?.data ?? []).map((m) => ({ value: m.external_id, label: `${m.name} (${m.external_id})` }))]}
        />
      </div>
      <Card padded={false}>
        {paged.query.isError ? (
          <div className="card-body"><Alert tone="error" title="Could not load subscriptions">{paged.query.error.message}</Alert></div>
        ) : !paged.query.isPending && paged.rows.length === 0 ? (
          <Empty title="No subscriptions">Create one with POST /v1/subscriptions and send the payer its link.</Empty>
        ) : (
          <Table label="Subscriptions">
              <thead>
                <tr><th scope="col">Subscription</th><th scope="col" className="num">Amount</th><th scope="col">Every</th><th scope="col">Status</th><th scope="col">Merchant</th><th scope="col">Next charge</th><th scope="col">Created</th></tr>
              </thead>
              <tbody>
                {paged.query.isPending ? <SkeletonRows cols={7} /> : paged.rows.map((s) => (
                  <tr key={s.id}>
                    <td><Link href={`/dashboard/subscriptions/${s.id}`} className="mono-soft cell-clip">{s.id}</Link></td>
                    <td className="num strong nowrap">{formatHuman(s.amount)} <span className="muted">{s.token}</span></td>
                    <td>{every(s)}</td>
                    <td><Badge state={s.state} /></td>
                    <td><Clip mono text={s.merchant_id} /></td>
                    <td className="muted">{s.state === 'active' || s.state === 'past_due' ? formatShortDate(s.next_charge_at) : '—'}</td>
                    <td className="muted">{formatShortDate(s.created_at)}</td>
                  </tr>
                ))}
              </tbody>
            </Table>
        )}
        <Pager page={paged.page} hasPrev={paged.hasPrev} hasNext={paged.hasNext} onPrev={paged.prev} onNext={paged.next} count={paged.rows.length} />
      </Card>
    </div>
  );
}
