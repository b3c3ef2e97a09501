import { createHash } from 'node:crypto';
import pg from 'pg';

/** Distinct statements one connection keeps prepared; past this, new texts run unnamed (parsed each time). */
const MAX_PER_CONNECTION = 200;
/** Names computed so far (text → name); cleared when full, names are recomputed identically. */
const MAX_NAMES = 2_000;
const names = new Map<string, string>();

function nameOf(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    if (names.size >= MAX_NAMES) names.clear();
    name = `k_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
    names.set(text, name);
  }
  return name;
}

/**
 * A pg Client that runs every parameterised query as a named (server-side prepared) statement: the first
 * execution on a connection sends Parse, later ones only Bind and Execute, so PostgreSQL neither re-parses
 * nor re-analyses the hot statements (order creation is three of them). Kysely sends the same SQL text for
 * the same query shape, so the name is a hash of the text. Statements without parameters (BEGIN, COMMIT,
 * migrations) stay unnamed. A connection prepares at most MAX_PER_CONNECTION texts, so query shapes that
 * vary (IN lists of varying length) cannot grow a backend's memory without bound.
 */
export class PreparingClient extends pg.Client {
  readonly #prepared = new Set<string>();

  override query(...args: unknown[]): never {
    const [text, values, callback] = args;
    if (typeof text === 'string' && Array.isArray(values) && values.length > 0 && callback === undefined) {
      const name = nameOf(text);
      if (this.#prepared.has(name) || this.#prepared.size < MAX_PER_CONNECTION) {
        this.#prepared.add(name);
        return super.query({ name, text, values }) as never;
      }
    }
    return (super.query as (...a: unknown[]) => never)(...args);
  }
}
