import { Gauge, type Registry } from 'prom-client';
import type { Executor } from '../../db/client.js';
import { opsRepo, PENDING_COUNT_CAP } from './repo.js';

type Labels<T extends string> = Partial<Record<T, string | number>>;

/** A gauge whose every label set is read again from the database at each scrape (gone rows → gone series). */
function dbGauge<T extends string>(registry: Registry, name: string, help: string, labelNames: readonly T[], read: () => Promise<Array<[Labels<T>, number]>>) {
  return new Gauge<T>({
    name, help, labelNames, registers: [registry],
    async collect() {
      const rows = await read();
      this.reset();
      for (const [labels, value] of rows) this.set(labels, value);
    },
  });
}

/**
 * The gauges docs/operations.md tells an operator to alert on: indexer lag and liveness, the operator outbox, the
 * webhook backlog and chain alerts. Read at scrape time from the database (any instance, API or worker, answers the
 * same), never from the chain's RPC.
 */
export function registerOpsGauges(registry: Registry, db: Executor) {
  if (registry.getSingleMetric('trisettle_indexer_lag_blocks')) return; // a registry shared by two service sets (tests)
  dbGauge(registry, 'trisettle_indexer_lag_blocks', 'Blocks between the indexer\'s cursor and the block it reads up to', ['chain_id'],
    async () => (await opsRepo.indexer(db)).filter((r) => r.lag !== null).map((r) => [{ chain_id: r.chain_id }, Math.max(Number(r.lag), 0)]));
  dbGauge(registry, 'trisettle_indexer_heartbeat_age_seconds', 'Seconds since the indexing instance last woke for the chain', ['chain_id'],
    async () => (await opsRepo.indexer(db)).filter((r) => r.heartbeat_age !== null).map((r) => [{ chain_id: r.chain_id }, r.heartbeat_age!]));
  dbGauge(registry, 'trisettle_indexer_consecutive_errors', 'Indexer passes in a row that failed (RPC or database)', ['chain_id'],
    async () => (await opsRepo.indexer(db)).map((r) => [{ chain_id: r.chain_id }, r.consecutive_errors]));
  dbGauge(registry, 'trisettle_indexer_enabled', '1 while the chain is indexed, 0 after POST /_/indexer/stop', ['chain_id'],
    async () => (await opsRepo.indexer(db)).map((r) => [{ chain_id: r.chain_id }, r.enabled ? 1 : 0]));
  dbGauge(registry, 'trisettle_operator_txs_open', 'Operator and relayer transactions not yet final, by state', ['chain_id', 'key_role', 'state'],
    async () => (await opsRepo.operatorTxs(db)).map((r) => [{ chain_id: r.chain_id, key_role: r.key_role, state: r.state }, Number(r.n)]));
  dbGauge(registry, 'trisettle_operator_tx_oldest_open_age_seconds', 'Age of the oldest transaction not yet final', ['chain_id', 'key_role'],
    async () => {
      const oldest = new Map<string, [Labels<'chain_id' | 'key_role'>, number]>();
      for (const r of await opsRepo.operatorTxs(db)) {
        const key = `${r.chain_id}/${r.key_role}`;
        if ((oldest.get(key)?.[1] ?? -1) < r.oldest_age) oldest.set(key, [{ chain_id: r.chain_id, key_role: r.key_role }, r.oldest_age]);
      }
      return [...oldest.values()];
    });
  dbGauge(registry, 'trisettle_webhook_deliveries_pending', `Webhook deliveries waiting to be sent or retried (counted up to ${PENDING_COUNT_CAP})`, [],
    async () => [[{}, Number((await opsRepo.deliveries(db)).n)]]);
  dbGauge(registry, 'trisettle_webhook_delivery_oldest_due_age_seconds', 'How long the most overdue pending delivery has been due (0: none overdue)', [],
    async () => [[{}, Math.max((await opsRepo.deliveries(db)).oldest_due_age ?? 0, 0)]]);
  dbGauge(registry, 'trisettle_chain_alerts', 'Chain alerts written so far, by kind (rate() of it is the alert rate)', ['chain_id', 'kind'],
    async () => (await opsRepo.alerts(db)).map((r) => [{ chain_id: r.chain_id, kind: r.kind }, Number(r.n)]));
}
