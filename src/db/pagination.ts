import { AppError } from '../lib/errors.js';

/**
 * Keyset pagination over (created_at desc, id desc): stable under inserts, one index range scan.
 * The cursor is opaque to clients (base64url of the last row's position). It holds a JS Date, so every table a
 * list pages keeps created_at at millisecond precision (timestamptz(3), migration 025): the Date is the stored value.
 */
export type Cursor = { createdAt: Date; id: string };

export function encodeCursor(row: { created_at: Date; id: string }): string {
  return Buffer.from(JSON.stringify([row.created_at.toISOString(), row.id])).toString('base64url');
}

export function decodeCursor(cursor: string | undefined): Cursor | null {
  if (!cursor) return null;
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [string, string];
    const createdAt = new Date(at);
    // Only an id this API could have issued: anything else (a NUL, a 10 KB string) must not reach SQL.
    if (typeof id !== 'string' || !/^[A-Za-z0-9_]{1,64}$/.test(id) || Number.isNaN(createdAt.getTime())) throw new Error('bad cursor');
    return { createdAt, id };
  } catch {
    throw new AppError('validation_failed', 'cursor is not a cursor returned by this API', 'cursor');
  }
}

export type Page<T> = { object: 'list'; data: T[]; has_more: boolean; next_cursor: string | null };

/** Rows were fetched with limit + 1; the extra row only says there is more. */
export function toPage<R extends { created_at: Date; id: string }, T>(rows: R[], limit: number, map: (r: R) => T): Page<T> {
  const hasMore = rows.length > limit;
  const slice = hasMore ? rows.slice(0, limit) : rows;
  const last = slice.at(-1);
  return {
    object: 'list',
    data: slice.map(map),
    has_more: hasMore,
    next_cursor: hasMore && last ? encodeCursor(last) : null,
  };
}
