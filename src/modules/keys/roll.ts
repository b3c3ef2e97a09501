import type { Db } from '../../db/client.js';
import { recordResponseInTx } from '../idempotency/context.js';
import { issueKey } from './issue.js';
import { serializeKey } from './serialize.js';

/**
 * POST /v1/developers/keys. A new secret key; existing keys keep working until revoked, so integrators can swap
 * without downtime. The new key is shown once: its answer commits with it, so a retry after a crash replays
 * it rather than minting a second key and leaving the first one active and unknown to anybody.
 */
export async function rollKey(db: Db, platformId: string) {
  return db.transaction().execute(async (tx) => {
    const { row, raw } = await issueKey(tx, platformId, 'secret');
    await recordResponseInTx(tx, 201, serializeKey(row, raw));
    return { row, secretKey: raw };
  });
}
