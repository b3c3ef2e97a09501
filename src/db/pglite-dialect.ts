import type { PGlite } from '@electric-sql/pglite';
import {
  CompiledQuery, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler,
  type DatabaseConnection, type Dialect, type Driver, type Kysely, type QueryResult, type TransactionSettings,
} from 'kysely';

/**
 * Kysely driver for embedded PGlite. PGlite is one connection, so a transaction must own it
 * exclusively from BEGIN to COMMIT: a FIFO mutex hands the single connection to one caller at a time.
 * Without it two concurrent Kysely transactions would interleave statements inside one session.
 */
class Mutex {
  private tail: Promise<void> = Promise.resolve();
  lock(): Promise<() => void> {
    let release!: () => void;
    const next = new Promise<void>((r) => (release = r));
    const acquired = this.tail.then(() => release);
    this.tail = this.tail.then(() => next);
    return acquired;
  }
}

/** int8 → bigint on every query: PGlite's default parses int8 to a JS number and loses precision. */
const QUERY_OPTIONS = { rowMode: 'object' as const, parsers: { 20: (v: string) => BigInt(v) } };

class PGliteConnection implements DatabaseConnection {
  constructor(private readonly pg: PGlite) {}
  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    // The extended protocol takes one statement; parameterless text (migrations) may hold several.
    const res = query.parameters.length === 0
      ? ((await this.pg.exec(query.sql)).at(-1) ?? { rows: [], affectedRows: 0 })
      : await this.pg.query<R>(query.sql, query.parameters as unknown[], QUERY_OPTIONS);
    const affected = res.affectedRows;
    return {
      rows: res.rows as R[],
      ...(affected !== undefined && affected !== null ? { numAffectedRows: BigInt(affected) } : {}),
    };
  }
  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not supported on PGlite');
  }
}

class PGliteDriver implements Driver {
  private readonly mutex = new Mutex();
  private readonly releases = new WeakMap<DatabaseConnection, () => void>();
  private readonly connection: PGliteConnection;
  constructor(private readonly pg: PGlite) {
    this.connection = new PGliteConnection(pg);
  }
  async init() {
    await this.pg.waitReady;
  }
  async acquireConnection(): Promise<DatabaseConnection> {
    const release = await this.mutex.lock();
    this.releases.set(this.connection, release);
    return this.connection;
  }
  async beginTransaction(conn: DatabaseConnection, settings: TransactionSettings) {
    const iso = settings.isolationLevel ? ` isolation level ${settings.isolationLevel}` : '';
    await conn.executeQuery(CompiledQuery.raw(`begin${iso}`));
  }
  async commitTransaction(conn: DatabaseConnection) {
    await conn.executeQuery(CompiledQuery.raw('commit'));
  }
  async rollbackTransaction(conn: DatabaseConnection) {
    await conn.executeQuery(CompiledQuery.raw('rollback'));
  }
  async releaseConnection(conn: DatabaseConnection) {
    const release = this.releases.get(conn);
    this.releases.delete(conn);
    release?.();
  }
  async destroy() {
    if (!this.pg.closed) await this.pg.close();
  }
}

export class PGliteDialect implements Dialect {
  constructor(private readonly pg: PGlite) {}
  createAdapter() {
    return new PostgresAdapter();
  }
  createDriver() {
    return new PGliteDriver(this.pg);
  }
  createQueryCompiler() {
    return new PostgresQueryCompiler();
  }
  createIntrospector(db: Kysely<unknown>) {
    return new PostgresIntrospector(db);
  }
}
