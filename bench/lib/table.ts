/** The human summary of results.json (stdout). */
const cell = (v: unknown) => (v === null || v === undefined ? '–' : String(v));

function table(title: string, head: string[], rows: unknown[][]) {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => cell(r[i]).length)));
  const line = (r: unknown[]) => r.map((v, i) => cell(v).padStart(widths[i]!)).join('  ');
  console.log(`\n${title}\n${line(head)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}`);
  for (const r of rows) console.log(line(r));
}

export function printTable(r: any) {
  console.log(`\nTrisettle bench ${r.run.date}  node ${r.machine.node}  ${r.machine.nproc} cpu  PG ${r.machine.postgres}  load ${r.run.load_avg_start.join(' ')} → ${r.run.load_avg_end.join(' ')}`);
  if (r.sign) console.log(`\nsign (in-process, 1 core): ${r.sign.bench_signer.per_s}/s; viem signTypedData ${r.sign.viem_sign_typed_data.per_s}/s`);
  if (r.orders) {
    const rows: unknown[][] = [];
    for (const [db, o] of Object.entries<any>(r.orders)) {
      for (const x of o.rows) {
        rows.push([db, x.connections, x.service.per_s, x.service.p50_ms, x.service.p99_ms, x.limit.per_s, x.limit.p99_ms, x.insert.per_s, x.ratio, x.rss_peak_mib, o.rss_idle_mib]);
      }
    }
    table('Order creation over HTTP (orders/s, ms)', ['db', 'conc', 'svc/s', 'p50', 'p99', 'limit/s', 'lim p99', 'insert/s', 'svc/limit', 'RSS MiB', 'idle'], rows);
  }
  if (r.checkout) {
    const rows: unknown[][] = [];
    for (const [db, x] of Object.entries<any>(r.checkout)) {
      rows.push([db, 'create', 16, x.create.per_s, x.create.p50_ms, x.create.p99_ms]);
      for (const q of x.public_read) rows.push([db, 'public read', q.connections, q.per_s, q.p50_ms, q.p99_ms]);
      if (x.public_read_polled) {
        const q = x.public_read_polled;
        rows.push([db, 'public read, buyers polling', q.connections, q.per_s, q.p50_ms, q.p99_ms]);
      }
      if (x.public_read_uncached) {
        const q = x.public_read_uncached;
        rows.push([db, 'public read, all misses', q.connections, q.per_s, q.p50_ms, q.p99_ms]);
      }
    }
    table('Checkout sessions', ['db', 'op', 'conc', 'per s', 'p50', 'p99'], rows);
  }
  if (r.indexer?.memory) {
    for (const m of r.indexer.memory) {
      table(`Indexer memory, ${m.logs} logs (synthetic node) on ${m.db}: ${m.per_s}/s, RSS ${m.rss_before_mib} → peak ${m.rss_peak_mib} MiB, heap ${m.heap_before_mib} → peak ${m.heap_peak_mib} MiB, load ${m.load_avg}`,
        ['logs applied', 's', 'RSS MiB', 'heap MiB'], m.checkpoints.map((c: any) => [c.logs, c.seconds, c.rss_mib, c.heap_mib]));
    }
  }
  if (r.indexer?.backlog) {
    const rows = (r.indexer.backlog ?? []).map((x: any) => [x.db, x.logs, x.seconds, x.per_s, x.limit?.per_s, x.ratio, x.rss_peak_mib]);
    table(`Indexer backlog (${r.indexer.generation?.logs ?? '?'} OrderPaid logs, generated at ${r.indexer.generation?.tx_per_s ?? '?'} tx/s)`, ['db', 'logs', 's', 'events/s', 'set-based SQL limit/s', 'ratio', 'RSS peak MiB'], rows);
    if (r.indexer.latency) {
      const l = r.indexer.latency;
      table('Confirmation depth → webhook at the receiver (ms)', ['db', 'samples', 'p50', 'p99', 'max', 'depth→indexed p50/p99', 'indexed→webhook p50/p99', 'from tx block p50/p99'],
        [[l.db, l.samples, l.p50_ms, l.p99_ms, l.max_ms, `${l.depth_to_indexed_p50_ms}/${l.depth_to_indexed_p99_ms}`, `${l.indexed_to_webhook_p50_ms}/${l.indexed_to_webhook_p99_ms}`, `${l.from_block_p50_ms}/${l.from_block_p99_ms}`]]);
    }
  }
  if (r.webhooks) {
    table('Webhook deliveries to a local receiver', ['db', 'endpoints', 'deliveries', 's', 'per s', 'bare undici/s', 'ratio', 'bare node:http/s', 'ratio'],
      r.webhooks.rows.map((x: any) => [x.db, x.endpoints, x.deliveries, x.seconds, x.per_s, x.limit?.per_s, x.ratio, x.node_http?.per_s, x.node_http?.ratio]));
  }
  if (r.explain) {
    table('EXPLAIN (ANALYZE) of list/filter queries (PostgreSQL)', ['query', 'index', 'ms'],
      r.explain.queries.map((q: any) => [q.name, q.indexes.join(', ') || 'NONE', q.execution_ms]));
  }
  if (r.scale) {
    const s = r.scale;
    const seedLine = (k: string) => `${s.orders[k].toLocaleString('en')} orders: ${s.seeding[k].rows.toLocaleString('en')} rows in ${s.seeding[k].seconds} s (${s.seeding[k].rows_per_s.toLocaleString('en')} rows/s)`;
    table(`Scale: ${seedLine('small')} vs ${seedLine('big')}; ${s.size.bytes_per_paid_order} bytes on disk per paid order; ${s.requests} requests at ${s.connections} connections (ms)`,
      ['call', 'small p50', 'small p99', 'big p50', 'big p99', 'p50 ×', 'p99 ×', `goal p99 × <= ${s.goal_p99_ratio}`],
      s.rows.map((x: any) => [x.call, x.small.p50_ms, x.small.p99_ms, x.big.p50_ms, x.big.p99_ms, x.p50_ratio, x.p99_ratio, x.meets_goal ? 'met' : 'MISSED']));
  }
}
