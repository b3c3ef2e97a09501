import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../../db/client.js';
import { createSealer } from '../../lib/seal.js';

const PURPOSE = 'trisettle/webhook-secrets/v1';
const PREFIX = 's1';

/** 8 hex characters naming a seal key in stored values (a hash of it, not usable to find it). */
const keyId = (key: string) => createHash('sha256').update(`${PURPOSE}/key-id/${key}`, 'utf8').digest('hex').slice(0, 8);

/**
 * Webhook endpoint secrets at rest. The service must sign with them, so they are sealed (AES-256-GCM, lib/seal.ts),
 * not hashed. `keys[0]` seals; every key in the list opens, so rotation is by configuration: put the new key
 * first, keep the old ones after it, restart (start-up re-seals every row with the first key: `resealAll`), then
 * drop the old ones. A stored value is `s1:<key id>:<sealed>`; a value that still starts with `whsec_` is a row
 * from before sealing, read as it is and re-sealed at the next start.
 */
export function createWebhookSecrets(keys: readonly string[]) {
  if (keys.length === 0) throw new Error('createWebhookSecrets: no seal key');
  const sealers = new Map(keys.map((k) => [keyId(k), createSealer(k, PURPOSE)]));
  const currentId = keyId(keys[0]!);
  const current = sealers.get(currentId)!;
  return {
    seal: (plain: string): string => `${PREFIX}:${currentId}:${current.seal(plain)}`,
    /** The plain secret; throws when the value was sealed with a key that is not configured. */
    open(stored: string): string {
      if (stored.startsWith('whsec_')) return stored;
      const [prefix, id, ...rest] = stored.split(':');
      const sealer = prefix === PREFIX && id ? sealers.get(id) : undefined;
      if (!sealer) throw new UnknownSealKeyError();
      return sealer.open(rest.join(':'));
    },
    isCurrent: (stored: string) => stored.startsWith(`${PREFIX}:${currentId}:`),
  };
}
export type WebhookSecrets = ReturnType<typeof createWebhookSecrets>;

export class UnknownSealKeyError extends Error {
  constructor() {
    super('webhook secret sealed with a key that is not configured (WEBHOOK_SEAL_KEYS)');
    this.name = 'UnknownSealKeyError';
  }
}

/**
 * Re-seals with the current key every endpoint secret that is plain (rows from before sealing) or sealed with
 * an older key. Compare-and-set per row: a roll that happens meanwhile wins. Returns what it did and the ids of
 * endpoints whose secret no configured key opens (main.ts refuses to start on those).
 */
export async function resealAll(db: Db, secrets: WebhookSecrets): Promise<{ resealed: number; unreadable: string[] }> {
  const rows = await db.selectFrom('webhook_endpoints').select(['id', 'secret', 'previous_secret']).execute();
  let resealed = 0;
  const unreadable: string[] = [];
  for (const row of rows) {
    const stale = !secrets.isCurrent(row.secret) || (row.previous_secret !== null && !secrets.isCurrent(row.previous_secret));
    if (!stale) continue;
    let secret: string;
    let previous: string | null;
    try {
      secret = secrets.isCurrent(row.secret) ? row.secret : secrets.seal(secrets.open(row.secret));
      previous = row.previous_secret === null || secrets.isCurrent(row.previous_secret) ? row.previous_secret : secrets.seal(secrets.open(row.previous_secret));
    } catch {
      unreadable.push(row.id);
      continue;
    }
    const r = await db.updateTable('webhook_endpoints').set({ secret, previous_secret: previous })
      .where('id', '=', row.id).where('secret', '=', row.secret)
      .where(row.previous_secret === null ? sql<boolean>`previous_secret is null` : sql<boolean>`previous_secret = ${row.previous_secret}`)
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) > 0) resealed++;
  }
  return { resealed, unreadable };
}
