import type { Executor } from '../../db/client.js';
import { decodeCursor, encodeCursor, type Page } from '../../db/pagination.js';
import { invalid } from '../../lib/errors.js';
import { keysRepo, type KeyCursor } from './repo.js';
import { serializeKey } from './serialize.js';

/** A key-list cursor: `a` (active) or `r` (revoked), then the usual (created_at, id) cursor. */
const encodeKeyCursor = (row: { created_at: Date; id: string; revoked_at: Date | null }) => `${row.revoked_at ? 'r' : 'a'}${encodeCursor(row)}`;

function decodeKeyCursor(cursor: string | undefined): KeyCursor | null {
  if (!cursor) return null;
  const state = cursor[0];
  const position = decodeCursor(cursor.slice(1));
  if ((state !== 'a' && state !== 'r') || !position) throw invalid('cursor', 'cursor is not a cursor returned by this API');
  return { ...position, revoked: state === 'r' };
}

/**
 * GET /v1/developers/keys: active keys first, then revoked ones, newest first within each, in keyset pages with
 * an honest has_more. However many keys were revoked, the first page at the default limit holds every active
 * key (there are at most MAX_ACTIVE_KEYS = 20).
 */
export async function listKeys(db: Executor, platformId: string, q: { limit: number; cursor?: string | undefined }): Promise<Page<ReturnType<typeof serializeKey>>> {
  const rows = await keysRepo.page(db, platformId, q.limit + 1, decodeKeyCursor(q.cursor));
  const hasMore = rows.length > q.limit;
  const data = rows.slice(0, q.limit);
  const last = data.at(-1);
  return { object: 'list', data: data.map((r) => serializeKey(r)), has_more: hasMore, next_cursor: hasMore && last ? encodeKeyCursor(last) : null };
}
