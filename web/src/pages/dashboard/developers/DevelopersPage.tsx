import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Alert, Badge, Button, Card, Clip, CopyButton, Link, Modal, Mono, SecretReveal, SkeletonRows } from '../../../components/ui';
import { api } from '../../../lib/api';
import { formatDate, formatShortDate } from '../../../lib/format';
import { useTitle } from '../../../lib/router';
import type { ApiKey, List, Merchant } from '../../../lib/types';
import { GaslessCard } from './GaslessCard';
import { KeyAuditLog } from './KeyAuditLog';
import { Pager, usePaged } from '../shared/paging';
import { ApiErrorAlert } from '../shared/ApiErrorAlert';
import { Table } from '../../../components/Table';

/** After a key changes: the key list and the audit log both moved. */
const KEY_QUERIES = [['keys'], ['audit_log']];

export function DevelopersPage() {
  useTitle('Developers');
  const qc = useQueryClient();
  // Active keys first (at most 20, so all on the first page), then revoked ones.
  const keys = usePaged<ApiKey>('keys', '/v1/developers/keys');
  const [rolled, setRolled] = useState<ApiKey | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const roll = useMutation({
    mutationFn: () => api.post<ApiKey>('/v1/developers/keys'),
    onSuccess: async (key) => {
      setRolled(key);
      await Promise.all(KEY_QUERIES.map((queryKey) => qc.invalidateQueries({ queryKey })));
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) => api.post<ApiKey>(`/v1/developers/keys/${encodeURIComponent(id)}/revoke`),
    onSuccess: async () => {
      setRevoking(null);
      await Promise.all(KEY_QUERIES.map((queryKey) => qc.invalidateQueries({ queryKey })));
    },
  });
  const publishable = keys.rows.find((k) => k.kind === 'publishable' && k.state === 'active');
  const base = window.location.origin;
  // The quick start names one of the platform's real merchants (its external_id), so it runs as pasted.
  const merchant = useQuery({ queryKey: ['merchants', 'quick-start'], queryFn: () => api.get<List<Merchant>>('/v1/merchants', { limit: 1 }) }).data?.data[0];

  return (
    <div className="page">
      <div className="page-head">
        <h1 className="page-title">Developers</h1>
        <div className="page-actions">
          <Link href="/dashboard/developers/logs" className="btn btn-secondary btn-md"><span>Logs</span></Link>
          <Button variant="primary" loading={roll.isPending} onClick={() => roll.mutate()}>Create secret key</Button>
        </div>
      </div>
      {roll.isError && <ApiErrorAlert title="Could not create a key" error={roll.error} />}
      <Card title="API keys" padded={false}>
        {keys.query.isError ? (
          <div className="card-body"><ApiErrorAlert error={keys.query.error} /></div>
        ) : (
          <Table label="API keys">
              <thead><tr><th scope="col">Type</th><th scope="col">Key</th><th scope="col">Status</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col"><span className="sr-only">Actions</span></th></tr></thead>
              <tbody>
                {keys.query.isPending ? <SkeletonRows cols={6} rows={3} /> : keys.rows.map((k) => (
                  <tr key={k.id} data-key-id={k.id}>
                    <td className="strong">{k.kind === 'secret' ? 'Secret' : 'Publishable'}</td>
                    <td>
                      {k.kind === 'publishable' && k.key ? (
                        <span className="key-cell"><Clip mono text={k.key} /><CopyButton value={k.key} /></span>
                      ) : (
                        <Mono>{k.hint}</Mono>
                      )}
                    </td>
                    <td><Badge state={k.state} /></td>
                    <td className="muted">{formatShortDate(k.created_at)}</td>
                    <td className="muted">{k.last_used_at ? formatShortDate(k.last_used_at) : 'Never'}</td>
                    <td className="actions-cell">
                      {k.state === 'active' && <Button size="sm" variant="ghost" onClick={() => setRevoking(k)}>Revoke</Button>}
                    </td>
                  </tr>
                ))}
              </tbody>
            </Table>
        )}
        <Pager page={keys.page} hasPrev={keys.hasPrev} hasNext={keys.hasNext} onPrev={keys.prev} onNext={keys.next} count={keys.rows.length} />
      </Card>
      <KeyAuditLog />
      <Card title="Quick start">
        <p className="muted">Create an order from your server with your secret key (shown once when you create it). The response carries the router address and the signed message the buyer&apos;s wallet submits.</p>
        {!merchant && <p className="muted">It needs a merchant: create one on <Link href="/dashboard/merchants">Merchants</Link> (or with <Mono>POST /v1/onboarding/merchants</Mono>, docs/integration.md step 4), then use its external ID.</p>}
        <pre className="code-block">{`export TRISETTLE_API=${base}
export TRISETTLE_API_KEY=sk_live_…   # your secret key
ORDER_NO=A-$(date +%s)
curl -fsS "$TRISETTLE_API/v1/orders" \\
  -H "Authorization: Bearer $TRISETTLE_API_KEY" \\
  -H "Content-Type: application/json" \\
  -H "Idempotency-Key: $ORDER_NO" \\
  -d '{"merchant_id":"${merchant?.external_id ?? '<merchant external_id>'}","order_no":"'"$ORDER_NO"'","chain_id":${merchant?.chain_id ?? 84532},"token":"USDC","amount":"12.50"}'`}</pre>
        {publishable && <p className="muted">Your publishable key <Mono>{publishable.hint}</Mono> is safe to embed in front-ends.</p>}
      </Card>
      <GaslessCard />
      {rolled && (
        <Modal title="New secret key" onClose={() => setRolled(null)} footer={<Button variant="primary" onClick={() => setRolled(null)}>I have stored it</Button>}>
          <SecretReveal label="Secret key" value={rolled.key ?? ''} warning="Shown only now: store it in your server's secrets. Your other keys keep working until you revoke them." />
        </Modal>
      )}
      {revoking && (
        <Modal
          title="Revoke this key?"
          onClose={() => setRevoking(null)}
          footer={
            <>
              <Button onClick={() => setRevoking(null)}>Cancel</Button>
              <Button variant="danger" loading={revoke.isPending} onClick={() => revoke.mutate(revoking.id)}>Revoke key</Button>
            </>
          }
        >
          <p>Requests with <Mono>{revoking.hint}</Mono> will be refused at once. This cannot be undone.</p>
          {revoke.isError && <ApiErrorAlert error={revoke.error} />}
        </Modal>
      )}
    </div>
  );
}
