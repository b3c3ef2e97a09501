import { Clip, Card, Empty, Mono, SkeletonRows } from '../../../components/ui';
import { formatDate, formatShortDate } from '../../../lib/format';
import type { AuditEvent } from '../../../lib/types';
import { Pager, usePaged } from '../shared/paging';
import { ApiErrorAlert } from '../shared/ApiErrorAlert';
import { Table } from '../../../components/Table';

const ACTIONS: Record<AuditEvent['action'], string> = {
  'key.created': 'Created (onboarding)',
  'key.rolled': 'Created',
  'key.revoked': 'Revoked',
};

function Who({ actor }: { actor: AuditEvent['actor'] }) {
  if (actor.type === 'session') return <span title={actor.user_id ?? undefined}>{actor.email}</span>;
  return <span>Secret key <Mono>{actor.key_id}</Mono> (itself)</span>;
}

/** Who created, rolled and revoked keys, when and from which address (GET /v1/developers/audit_log), newest first. */
export function KeyAuditLog() {
  const paged = usePaged<AuditEvent>('audit_log', '/v1/developers/audit_log');
  return (
    <Card title="Key audit log" padded={false}>
      {paged.query.isError ? (
        <div className="card-body"><ApiErrorAlert title="Could not load the audit log" error={paged.query.error} /></div>
      ) : !paged.query.isPending && paged.rows.length === 0 ? (
        <Empty title="No key events yet" />
      ) : (
        <Table label="Key audit log">
            <thead><tr><th scope="col">When</th><th scope="col">Action</th><th scope="col">Key</th><th scope="col">Who</th><th scope="col">From</th></tr></thead>
            <tbody>
              {paged.query.isPending ? <SkeletonRows cols={5} rows={3} /> : paged.rows.map((e) => (
                <tr key={e.id} data-event-id={e.id}>
                  <td className="muted">{formatShortDate(e.created_at)}</td>
                  <td className="strong">{ACTIONS[e.action]}</td>
                  <td><Mono title={e.key_id}>{e.key_hint}</Mono></td>
                  <td><Who actor={e.actor} /></td>
                  <td><Clip mono text={e.client_address ?? '—'} /></td>
                </tr>
              ))}
            </tbody>
          </Table>
      )}
      <Pager page={paged.page} hasPrev={paged.hasPrev} hasNext={paged.hasNext} onPrev={paged.prev} onNext={paged.next} count={paged.rows.length} />
    </Card>
  );
}
