import { CompiledQuery, type Compilable } from 'kysely';
import type { Executor } from './client.js';

/**
 * A query written with Kysely's typed builder, built and compiled once and then run with new arguments.
 * Building and compiling a query with a join and a subquery costs more CPU in Node than PostgreSQL
 * spends answering it (bench: ≈ 0.2 ms of an order's 3 ms), so the hot path's queries are built once.
 *
 * `build` is called a single time, with placeholder objects in place of its arguments; where they land among
 * the compiled parameters says where each argument goes on every later call. Values the builder writes
 * itself stay as they were compiled. `build` must therefore pass each argument through as a value and never
 * branch on it: a query whose shape depends on an argument needs one precompiled query per shape.
 */
export function precompiled<A extends unknown[], R>(build: (db: Executor, ...args: A) => Compilable<R>) {
  let compiled: { sql: string; slots: ({ arg: number } | { value: unknown })[] } | undefined;

  function compile(db: Executor, arity: number) {
    const placeholders = Array.from({ length: arity }, (_, i) => Object.freeze({ placeholder: i }));
    const query = build(db, ...(placeholders as unknown as A)).compile();
    const slots = query.parameters.map((p) => {
      const arg = placeholders.indexOf(p as (typeof placeholders)[number]);
      return arg >= 0 ? { arg } : { value: p };
    });
    const used = new Set(slots.flatMap((s) => ('arg' in s ? [s.arg] : [])));
    if (used.size !== arity) throw new Error(`precompiled: ${arity - used.size} argument(s) never reach the query's parameters`);
    return { sql: query.sql, slots };
  }

  return {
    async execute(db: Executor, ...args: A): Promise<R[]> {
      compiled ??= compile(db, args.length);
      const parameters = compiled.slots.map((s) => ('arg' in s ? args[s.arg] : s.value));
      return (await db.executeQuery<R>(CompiledQuery.raw(compiled.sql, parameters))).rows;
    },
    async executeTakeFirst(db: Executor, ...args: A): Promise<R | undefined> {
      return (await this.execute(db, ...args))[0];
    },
  };
}
