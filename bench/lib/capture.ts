import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, type CompiledQuery } from 'kysely';
import type pg from 'pg';
import type { DB } from '../../src/db/schema.js';

/**
 * The product's own SQL, for EXPLAIN: a repository function runs against a compile-only Kysely (DummyDriver) that
 * records the statement and its parameters instead of sending them. No twin of a statement is typed in the bench.
 */
export function statementCapture() {
  let captured: CompiledQuery | null = null;
  const dry = new Kysely<DB>({
    dialect: { createAdapter: () => new PostgresAdapter(), createDriver: () => new DummyDriver(), createIntrospector: (d) => new PostgresIntrospector(d), createQueryCompiler: () => new PostgresQueryCompiler() },
    log: (e) => { if (e.level === 'query') captured = e.query; },
  });
  return {
    /** The last statement `fn` sent (its result, empty rows, is ignored). */
    async capture(fn: (d: Kysely<DB>) => Promise<unknown>): Promise<CompiledQuery> {
      captured = null;
      await fn(dry).catch(() => {});
      if (!captured) throw new Error('capture: the function sent no statement');
      return captured;
    },
    destroy: () => dry.destroy(),
  };
}

export type Explained = { indexes: string[]; seq_scans: string[]; execution_ms: number | null; plan: string };

/** EXPLAIN (ANALYZE, BUFFERS) of a captured statement; one that writes or locks runs in a transaction rolled back. */
export async function explainStatement(client: pg.Client, q: CompiledQuery, writes = false): Promise<Explained> {
  if (writes) await client.query('begin');
  try {
    const res = await client.query(`explain (analyze, buffers) ${q.sql}`, q.parameters as unknown[]);
    const plan = res.rows.map((r) => r['QUERY PLAN']).join('\n');
    const indexes = [...new Set([...plan.matchAll(/(?:Index(?: Only)? Scan(?: Backward)? using|Bitmap Index Scan on) (\S+)/g)].map((m) => m[1]!))];
    const seq = [...new Set([...plan.matchAll(/Seq Scan on (\S+)/g)].map((m) => m[1]!))];
    const ms = /Execution Time: ([\d.]+) ms/.exec(plan);
    return { indexes, seq_scans: seq, execution_ms: ms ? Number(ms[1]) : null, plan };
  } finally {
    if (writes) await client.query('rollback');
  }
}
