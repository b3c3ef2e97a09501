import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    httpRequests: new Histogram({
      name: 'trisettle_http_request_duration_seconds',
      help: 'HTTP request duration by route and status',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    webhookDeliveries: new Counter({
      name: 'trisettle_webhook_deliveries_total',
      help: 'Webhook delivery attempts by outcome',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    requestLogDropped: new Counter({
      name: 'trisettle_request_log_dropped_total',
      help: 'Request log entries dropped before they were written, by reason (rows: the queue held 10,000; bytes: REQUEST_LOG_QUEUE_MAX_BYTES)',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    indexedLogs: new Counter({
      name: 'trisettle_indexed_logs_total',
      help: 'Chain logs applied by the indexer',
      labelNames: ['chain_id', 'event'] as const,
      registers: [registry],
    }),
  };
}
export type Metrics = ReturnType<typeof createMetrics>;
