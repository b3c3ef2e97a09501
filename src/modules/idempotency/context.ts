import { AsyncLocalStorage } from 'node:async_hooks';
import type { Executor } from '../../db/client.js';

/**
 * The Idempotency-Key of the request being served, if any. A service that creates a resource stores
 * the response inside its own transaction (recordResponseInTx), so "resource exists" and "this key's
 * answer is known" commit together: a crash after the commit and before the response reached the
 * client is answered on retry by replaying the stored response, never by creating a second resource.
 */
type Recorder = (tx: Executor, status: number, body: string) => Promise<unknown>;
const storage = new AsyncLocalStorage<Recorder>();

export const runWithIdempotencyKey = <T>(record: Recorder, fn: () => Promise<T>) => storage.run(record, fn);

export async function recordResponseInTx(tx: Executor, status: number, body: unknown) {
  const record = storage.getStore();
  if (record) await record(tx, status, JSON.stringify(body));
}

/** Whether the request being served carries an Idempotency-Key whose response must be recorded. */
export const recordsResponse = (): boolean => storage.getStore() !== undefined;
